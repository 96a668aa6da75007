// An object arriving from storage, readable while it arrives. Its bytes are copied once, as they
// come, into one buffer of the object's size (the buffer the memory cache then keeps), and readers
// take them from there: the first viewer of a miss gets its first bytes before the last have left
// storage, and viewers arriving meanwhile read the same buffer rather than making their own GET.
import type { ServerResponse } from 'node:http';
import { drained } from './drained.ts';

export class ObjectFill {
  readonly data: Buffer;
  /** Bytes arrived so far: data[0, filled) is final. */
  filled = 0;
  /** Why the read stopped short, once it has. */
  failure?: Error;
  private waiters: (() => void)[] = [];

  readonly size: number;
  constructor(size: number) {
    this.size = size;
    this.data = Buffer.allocUnsafe(size);
  }

  /** Copies the body in as it arrives; rejects (and wakes every reader) when it fails or ends short. */
  async readFrom(body: AsyncIterable<Buffer>): Promise<void> {
    try {
      for await (const chunk of body) {
        if (this.filled + chunk.length > this.size)
          throw new Error(`storage sent more than the ${this.size} bytes it announced`);
        chunk.copy(this.data, this.filled);
        this.filled += chunk.length;
        this.wake();
      }
      if (this.filled !== this.size)
        throw new Error(`storage sent ${this.filled} of the ${this.size} bytes it announced`);
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.wake();
      throw this.failure;
    }
  }

  /** Resolves once byte `offset` has arrived; rejects with the failure when it never will. */
  async arrived(offset: number): Promise<void> {
    while (this.filled <= offset) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * Writes bytes [start, end] of the fill to the response as they arrive, minding the socket's
 * backpressure. A read that fails midway destroys the response: with its Content-Length sent, the
 * client sees a truncated body as the error it is, never as a complete one.
 */
export async function writeFill(fill: ObjectFill, start: number, end: number, res: ServerResponse): Promise<void> {
  let at = start;
  while (at <= end) {
    if (res.destroyed) return;
    try {
      await fill.arrived(at);
    } catch {
      res.destroy();
      return;
    }
    const upTo = Math.min(fill.filled, end + 1);
    const flushed = res.write(fill.data.subarray(at, upTo));
    at = upTo;
    if (!flushed && at <= end) await drained(res);
  }
  res.end();
}
