// Segment logs: every media segment a node serves becomes a row in ClickHouse
// (`segment_deliveries`; the row, its encoding and its insert are @kino/analytics' segment-row.ts),
// through the node's spool (row-spool.ts: durability, batching, shipping). A segment's bytes go out
// once its row is written.
import type { Logger } from '@kino/infra';
import { insertSegmentRows, SegmentRowEncoder, type ClickHouseHttp, type SegmentDelivery } from '@kino/analytics';
import { RowSpool } from './row-spool.ts';

export type { SpoolState } from './row-spool.ts';

export interface SegmentLogOptions {
  dir: string;
  clickHouse: ClickHouseHttp;
  nodeId: string;
  shipIntervalMs: number;
  logger: Logger;
}

export class SegmentLog {
  private readonly encoder: SegmentRowEncoder;

  private readonly spool: RowSpool;
  private constructor(spool: RowSpool, nodeId: string) {
    this.spool = spool;
    this.encoder = new SegmentRowEncoder(nodeId);
  }

  static open(options: SegmentLogOptions): SegmentLog {
    const spool = RowSpool.open({
      ...options,
      rowName: 'segment',
      insert: (clickHouse, format, lines) => insertSegmentRows(clickHouse, format, lines),
    });
    return new SegmentLog(spool, options.nodeId);
  }

  /** Rows since start: written to the spool, handed to ClickHouse (200), and failed shipping passes. */
  get counts(): RowSpool['counts'] {
    return this.spool.counts;
  }

  /**
   * Appends one segment's row. The returned promise resolves once it is written (durable against a
   * kill of this process); the caller sends the segment after that. It never rejects.
   */
  record(delivery: SegmentDelivery): Promise<void> {
    return this.spool.append(this.encoder.line(delivery));
  }

  /** Closes the open spool file and ships every batch now (tests, shutdown). */
  flush(): Promise<void> {
    return this.spool.flush();
  }

  /** Stops writing, ships what it can within `timeoutMs`, leaves the rest for the next start. */
  close(timeoutMs?: number): Promise<void> {
    return this.spool.close(timeoutMs);
  }

  spoolState(now?: number): ReturnType<RowSpool['spoolState']> {
    return this.spool.spoolState(now);
  }
}
