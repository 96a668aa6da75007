// Playback events: every beacon event delivery accepts becomes a row in ClickHouse
// (`playback_events`; the row, its encoding and its insert are @kino/analytics' playback-event.ts),
// through the node's spool (row-spool.ts), in its own directory beside the segment rows'. A beacon
// request is answered 202 once its events are written.
import type { Logger } from '@kino/infra';
import {
  insertPlaybackEvents,
  PlaybackEventEncoder,
  type ClickHouseHttp,
  type PlaybackEventContext,
} from '@kino/analytics';
import type { BeaconEvent } from '@kino/proto/contract';
import { RowSpool } from './row-spool.ts';

export interface PlaybackEventLogOptions {
  dir: string;
  clickHouse: ClickHouseHttp;
  shipIntervalMs: number;
  logger: Logger;
}

export class PlaybackEventLog {
  private readonly encoder = new PlaybackEventEncoder();

  private readonly spool: RowSpool;
  private constructor(spool: RowSpool) {
    this.spool = spool;
  }

  static open(options: PlaybackEventLogOptions): PlaybackEventLog {
    const spool = RowSpool.open({
      ...options,
      rowName: 'playback event',
      // Always TabSeparated: no older node spooled playback events as JSON.
      insert: (clickHouse, _format, lines) => insertPlaybackEvents(clickHouse, lines),
    });
    return new PlaybackEventLog(spool);
  }

  get counts(): RowSpool['counts'] {
    return this.spool.counts;
  }

  /** Appends a checked batch's events; resolves once they are written (durable against a kill of this process). */
  record(context: PlaybackEventContext, events: readonly BeaconEvent[]): Promise<void> {
    return this.spool.append(this.encoder.lines(context, events), events.length);
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
