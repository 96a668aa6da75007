// The delivery node's spool: rows it must hand to ClickHouse, without ClickHouse on the request
// path. Segment rows (segment-log.ts) and playback events (beacons.ts) each have one, in their own
// directory; what a row is and how it is inserted is theirs (`insert`), the durability, batching
// and shipping are here.
//
// Durability. A row is appended to a spool file in its directory with write(2) before the request
// that made it is answered (a segment's first byte, a beacon's 202). From then on a kill -9 of the
// node cannot lose it: the bytes are in the kernel's page cache and the file is replayed at the next
// start. The rows recorded in one turn of the event loop go in one write(2), at the end of that turn
// (setImmediate), and the caller answers once `append`'s promise resolves: a write(2) per row was
// about half of the node's CPU on the segment path (bench:analytics --ingest-only: 2.5 s per million
// rows, 1.1 s with a write per turn), and under load many requests arrive in one turn. fdatasync
// runs in group commits every 50 ms (off the request path), bounding what a power loss or kernel
// crash could take to the last 50 ms. So every row whose request a client saw answered is kept.
//
// Format. A spool line is the row in ClickHouse's TabSeparated format, written once when the row is
// recorded and sent as it is. It costs the node far less than JSON.stringify of each row did
// (bench:analytics --ingest-only prints the CPU per run), and ClickHouse 18.16 and chDB both read
// it, with less CPU than JSONEachRow. Spool files are `.tsv`; `.ndjson` batches (JSONEachRow lines)
// left by an older node are still shipped as such.
//
// Shipping. Every DELIVERY_LOG_SHIP_INTERVAL_MS the open spool file is closed (synced) and renamed
// to a batch; batches are inserted in order (the spool's lines as they are, up to 100,000 rows an
// INSERT) and deleted once ClickHouse answered 200. A batch that was inserted but not yet deleted
// when the node died is inserted again at start: its rows keep their ids, and the ReplacingMergeTree
// tables collapse the copies. `insert` marks what the batch changed for the refreshers after the
// rows (@kino/analytics' rollups.ts, playback-fold.ts), which recompute from the raw rows. While
// ClickHouse is unreachable, batches wait on disk and are retried; so do they while the API has not
// created the analytics schema yet (the API migrates ClickHouse; a node only checks the schema is there).
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { close, fdatasync } from 'node:fs';
import { readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '@kino/infra';
import { assertClickHouseMigrated, type ClickHouseHttp, type SegmentRowFormat } from '@kino/analytics';

const fdatasyncAsync = promisify(fdatasync);
const closeAsync = promisify(close);

/** Spool files in TabSeparated (this node) and JSONEachRow (older nodes), by extension. */
const spoolFormats: Record<string, SegmentRowFormat> = { '.tsv': 'TabSeparated', '.ndjson': 'JSONEachRow' };

interface SpoolFile {
  fd: number;
  name: string;
  path: string;
  rows: number;
  /** When its first row was written (ms); 0 while it has none. */
  firstRowAt: number;
}

/** What waits in the spool, for metrics. */
export interface SpoolState {
  /** Sealed batches, plus the open file when it holds rows. */
  files: number;
  bytes: number;
  /** Age of the oldest row not yet shipped; 0 when nothing waits. */
  oldestRowAgeSeconds: number;
}

const groupCommitMs = 50;
/** A batch is one INSERT: large enough that ClickHouse parses rows, not requests. */
const maxRowsPerFile = 100_000;

/** A sealed batch's complete lines, as `insert` receives them. */
export interface SpoolLines {
  data: Buffer;
  text: string;
  count: number;
}

export interface RowSpoolOptions {
  dir: string;
  clickHouse: ClickHouseHttp;
  shipIntervalMs: number;
  logger: Logger;
  /** What the rows are, in log lines (`segment`, `playback event`). */
  rowName: string;
  /** Inserts a batch's lines as they are, then marks what they changed; must be idempotent (a batch may be shipped twice). */
  insert(clickHouse: ClickHouseHttp, format: SegmentRowFormat, lines: SpoolLines): Promise<void>;
}

export class RowSpool {
  private current!: SpoolFile;
  private dirty = false;
  private syncing: Promise<void> = Promise.resolve();
  private shipping?: Promise<void>;
  private nextShipping?: Promise<void>;
  private schemaChecked = false;
  private failures = 0;
  private retryAt = 0;
  private fileSeq = 0;
  /** Rows recorded in this turn of the event loop, not yet written. */
  private pending = pendingRows();
  private syncTimer?: NodeJS.Timeout;
  private shipTimer?: NodeJS.Timeout;
  private closed = false;
  private readonly lockPath: string;
  /** Rows since start: written to the spool, handed to ClickHouse (200), and failed shipping passes. */
  readonly counts = { spooledRows: 0, shippedRows: 0, shipFailures: 0 };

  private readonly options: RowSpoolOptions;
  private constructor(options: RowSpoolOptions) {
    this.options = options;
    this.lockPath = join(options.dir, 'spool.lock');
  }

  static open(options: RowSpoolOptions): RowSpool {
    const spool = new RowSpool(options);
    spool.start();
    return spool;
  }

  /**
   * Appends `rows` encoded rows (`lines`: whole lines, each ending in a newline). The returned
   * promise resolves once they are written (durable against a kill of this process), at the end of
   * this turn of the event loop together with every other row appended in it; the caller answers
   * after that. It never rejects: rows that could not be written are logged and serving goes on.
   */
  append(lines: string, rows = 1): Promise<void> {
    if (this.closed || rows === 0) return Promise.resolve();
    this.pending.text += lines;
    if (this.pending.rows === 0) setImmediate(() => this.writePending());
    this.pending.rows += rows;
    return this.pending.written;
  }

  /** Writes the rows recorded since the last write, in one write(2), and releases their callers. */
  private writePending(): void {
    const batch = this.pending;
    if (batch.rows === 0) return;
    this.pending = pendingRows();
    try {
      writeSync(this.current.fd, batch.text);
      if (this.current.rows === 0) this.current.firstRowAt = Date.now();
      this.current.rows += batch.rows;
      this.counts.spooledRows += batch.rows;
      this.dirty = true;
      if (this.current.rows >= maxRowsPerFile) this.rotate();
    } catch (error) {
      // Serving goes on (a full disk must not stop playback); the rows are lost and said so.
      this.options.logger.error(
        { err: error, rows: batch.rows },
        `${this.options.rowName} rows not written to the spool`,
      );
    }
    batch.release();
  }

  /** Closes the open spool file and ships every batch now (tests, shutdown). */
  async flush(): Promise<void> {
    this.writePending();
    this.rotate();
    await this.shipAll();
  }

  /** Stops writing, ships what it can within `timeoutMs`, leaves the rest for the next start. */
  async close(timeoutMs = 5_000): Promise<void> {
    if (this.closed) return;
    clearInterval(this.syncTimer);
    clearInterval(this.shipTimer);
    this.writePending();
    this.rotate();
    this.closed = true;
    closeSync(this.current.fd);
    unlinkSync(this.current.path);
    await Promise.race([this.shipAll().catch(() => undefined), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    if (existsSync(this.lockPath)) unlinkSync(this.lockPath);
  }

  /**
   * What waits in the spool (read from the directory: batches a previous process left count too).
   * A batch's age is that of its file (named by the time it was opened, at or before its first row).
   */
  async spoolState(now = Date.now()): Promise<SpoolState> {
    const { dir } = this.options;
    let files = 0;
    let bytes = 0;
    let oldest = this.current.rows > 0 ? this.current.firstRowAt : now;
    for (const name of await readdir(dir)) {
      if (!name.startsWith('batch-') && !(name.startsWith('open-') && this.current.rows > 0)) continue;
      // A batch shipped (deleted) between the listing and here is simply no longer waiting.
      const size = await stat(join(dir, name)).then(
        (s) => s.size,
        () => undefined,
      );
      if (size === undefined) continue;
      files++;
      bytes += size;
      if (name.startsWith('batch-'))
        oldest = Math.min(oldest, Number(name.slice('batch-'.length).split('-')[0]) || now);
    }
    return { files, bytes, oldestRowAgeSeconds: Math.max(0, (now - oldest) / 1000) };
  }

  private start(): void {
    const { dir } = this.options;
    mkdirSync(dir, { recursive: true });
    this.lock();
    // Spool files a previous process left open become batches: it can no longer write them.
    for (const name of readdirSyncSorted(dir)) {
      if (name.startsWith('open-')) renameSync(join(dir, name), join(dir, `batch-${name.slice('open-'.length)}`));
    }
    this.current = this.openSpoolFile();
    this.syncTimer = setInterval(() => this.groupCommit(), groupCommitMs);
    this.shipTimer = setInterval(() => {
      this.rotate();
      // While ClickHouse is failing, retries back off (up to a minute) instead of every interval.
      if (Date.now() >= this.retryAt) void this.shipAll().catch(() => undefined);
    }, this.options.shipIntervalMs);
    this.syncTimer.unref();
    this.shipTimer.unref();
    void this.shipAll().catch(() => undefined);
  }

  private lock(): void {
    if (existsSync(this.lockPath)) {
      const pid = Number(readFileSync(this.lockPath, 'utf8').trim());
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new Error(`spool directory ${this.options.dir} is in use by process ${pid}`);
      }
    }
    writeFileSync(this.lockPath, String(process.pid));
  }

  private openSpoolFile(): SpoolFile {
    const name = `${Date.now()}-${process.pid}-${String(this.fileSeq++).padStart(6, '0')}.tsv`;
    const path = join(this.options.dir, `open-${name}`);
    return { fd: openSync(path, 'a'), name, path, rows: 0, firstRowAt: 0 };
  }

  private groupCommit(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const fd = this.current.fd;
    this.syncing = this.syncing
      .then(() => fdatasyncAsync(fd))
      .catch((error: unknown) => {
        this.options.logger.error({ err: error }, `${this.options.rowName} spool fdatasync failed`);
      });
  }

  /** Seals the open file as a batch (synced, closed, renamed) and opens a new one. */
  private rotate(): void {
    if (this.closed || this.current.rows === 0) return;
    const sealed = this.current;
    this.current = this.openSpoolFile();
    this.dirty = false;
    // After any group commit still running on the sealed fd: synced, closed, then renamed, each on
    // libuv's thread pool. A synchronous fdatasync here stalled every request in flight once per
    // ship interval (milliseconds on a busy disk), which is what a p99 is made of.
    this.syncing = this.syncing
      .then(async () => {
        await fdatasyncAsync(sealed.fd);
        await closeAsync(sealed.fd);
        await rename(sealed.path, join(this.options.dir, `batch-${sealed.name}`));
      })
      .catch((error: unknown) =>
        this.options.logger.error(
          { err: error, file: sealed.path },
          `sealing a ${this.options.rowName} spool file failed`,
        ),
      );
  }

  /**
   * Ships every sealed batch. A pass already under way may have listed the spool before the
   * caller's batch was sealed (a clean stop right after a slow startup ship left its last batch
   * behind that way), so a caller arriving mid-pass gets one more pass after it; callers arriving
   * meanwhile share that queued pass.
   */
  private shipAll(): Promise<void> {
    if (this.shipping) {
      this.nextShipping ??= this.shipping
        .catch(() => undefined)
        .then(() => {
          this.nextShipping = undefined;
          return this.shipAll();
        });
      return this.nextShipping;
    }
    this.shipping = this.shipBatches().finally(() => (this.shipping = undefined));
    return this.shipping;
  }

  private async shipBatches(): Promise<void> {
    await this.syncing;
    const { dir, clickHouse, logger, rowName } = this.options;
    try {
      // The API migrates the schema; until it has, batches wait like any that failed to ship.
      if (!this.schemaChecked) {
        await assertClickHouseMigrated(clickHouse);
        this.schemaChecked = true;
      }
      for (const name of (await readdir(dir)).filter((n) => n.startsWith('batch-')).sort(byTimestamp)) {
        const path = join(dir, name);
        const format = spoolFormats[extname(name)];
        if (!format) throw new Error(`spool file ${path} is neither .tsv nor .ndjson`);
        const lines = completeLines(await readFile(path));
        // The lines go as they are, not parsed and re-encoded; then their days are marked.
        // Before forgetting the batch: a crash in between replays both.
        await this.options.insert(clickHouse, format, lines);
        await unlink(path);
        this.counts.shippedRows += lines.count;
        logger.debug({ batch: name, rows: lines.count }, `${rowName} batch shipped`);
      }
      this.failures = 0;
      this.retryAt = 0;
    } catch (error) {
      this.failures++;
      this.counts.shipFailures++;
      // Not p-retry: this backoff only holds back the ship timer's next attempt. Rows keep arriving
      // while ClickHouse is down, and a retry loop of its own would run beside the timer and
      // beside flush() and close(), which must try at once and report the failure.
      const backoffMs = Math.min(60_000, this.options.shipIntervalMs * 2 ** Math.min(this.failures, 10));
      this.retryAt = Date.now() + backoffMs;
      logger.warn(
        { err: error, failures: this.failures, retryInMs: backoffMs },
        `${rowName} rows not shipped yet; they wait in the spool`,
      );
      throw error;
    }
  }
}

interface PendingRows {
  text: string;
  rows: number;
  /** Resolves when `text` was written (or failed to be, which is logged). */
  written: Promise<void>;
  release: () => void;
}

function pendingRows(): PendingRows {
  let release!: () => void;
  const written = new Promise<void>((resolve) => (release = resolve));
  return { text: '', rows: 0, written, release };
}

/**
 * The rows of a spool file the node finished writing: everything up to the last newline. Rows are
 * written whole lines at a time, so only a crash of the machine (or a kill during the write(2) of a
 * batch) can leave a torn (or zero-filled) tail, and that tail has no newline.
 */
function completeLines(file: Buffer): SpoolLines {
  const data = file.subarray(0, file.lastIndexOf(0x0a) + 1);
  const text = data.toString('utf8');
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return { data, text, count };
}

function byTimestamp(a: string, b: string): number {
  const stamp = (name: string) => name.replace(/^(batch|open)-/, '');
  return stamp(a) < stamp(b) ? -1 : stamp(a) > stamp(b) ? 1 : 0;
}

function readdirSyncSorted(dir: string): string[] {
  return readdirSync(dir).sort(byTimestamp);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
