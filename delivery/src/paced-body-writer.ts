// Writes response bodies held in memory (cached segments, playlists) a few megabytes per turn of the
// event loop, in arrival order.
//
// Why: libuv accepts one new connection per turn of the loop (libuv/libuv#3696), and a cached 2 MB
// segment goes to the kernel in one write that copies it whole. Written as their requests arrive,
// 128 busy connections make a turn of about 60 ms (128 copies of 2 MB), so the node admitted about
// 17 new connections a second while it was busy: 128 viewers arriving together waited up to 3.9 s
// for their first byte. With at most `bytesPerTurn` copied per turn, a turn stays within a few
// milliseconds, so waiting connections are accepted at hundreds a second, and the total work is the
// same: a body still goes to the kernel in one write (bench/delivery; docs/decisions/delivery.md, "Paced writes").
import type { ServerResponse } from 'node:http';

interface PendingBody {
  res: ServerResponse;
  data: Buffer;
}

export class PacedBodyWriter {
  /** Bodies in arrival order; those before `head` are written (their slots emptied). */
  private pending: (PendingBody | undefined)[] = [];
  private head = 0;
  /** Bytes written since this turn's writing began (reset when the turn's check phase runs). */
  private spent = 0;
  private scheduled = false;

  private readonly bytesPerTurn: number;
  private readonly nextTurn: (run: () => void) => void;
  constructor(
    /** Bytes written per turn; a body larger than this still goes whole, alone in its turn. */
    bytesPerTurn: number,
    /** Runs `turnEnds` once the loop has polled for I/O: `setImmediate`, the loop's check phase. */
    nextTurn: (run: () => void) => void = setImmediate,
  ) {
    this.bytesPerTurn = bytesPerTurn;
    this.nextTurn = nextTurn;
  }

  /** Ends `res` with `data`: at once while this turn has budget and nothing waits, else in a coming turn. */
  end(res: ServerResponse, data: Buffer): void {
    if (this.queued === 0 && (this.spent === 0 || this.spent + data.length <= this.bytesPerTurn)) {
      this.spent += data.length;
      res.end(data);
    } else {
      this.pending.push({ res, data });
    }
    if (!this.scheduled) {
      this.scheduled = true;
      this.nextTurn(this.turnEnds);
    }
  }

  /** Bodies waiting for their turn. */
  get queued(): number {
    return this.pending.length - this.head;
  }

  /** The loop's check phase: the turn's I/O is handled; a new budget, spent first on who waits. */
  private readonly turnEnds = (): void => {
    this.spent = 0;
    while (this.head < this.pending.length) {
      const next = this.pending[this.head]!;
      if (this.spent > 0 && this.spent + next.data.length > this.bytesPerTurn) break;
      this.pending[this.head++] = undefined;
      // A viewer who left while waiting costs nothing more.
      if (next.res.destroyed) continue;
      this.spent += next.data.length;
      next.res.end(next.data);
    }
    if (this.head === this.pending.length) {
      this.pending = [];
      this.head = 0;
    } else if (this.head >= 1024) {
      // Under load the queue may never empty: drop the written slots now and then, not every turn.
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
    // What was written now counts against the next poll phase too; with nothing written and
    // nothing waiting, the writer sleeps until the next body.
    this.scheduled = this.spent > 0 || this.queued > 0;
    if (this.scheduled) this.nextTurn(this.turnEnds);
  };
}
