// The playback event row: one per beacon event a player reported (issue 58), in `playback_events`.
// Delivery checks a batch, encodes each event as one TabSeparated line here and spools it
// (delivery/src/beacons.ts, row-spool.ts); the shipper inserts the lines as they are and marks their
// views for the fold (playback-fold.ts), which turns each view's events into its `playback_views`
// row. The columns are declared here only.
import { randomBytes } from 'node:crypto';
import type { BeaconBatch, BeaconEvent } from '@kino/proto/contract';
import type { ClickHouseHttp } from './clickhouse.ts';
import { clickHouseString, fromTabSeparatedField, tabSeparatedField, toClickHouseDateTime } from './clickhouse.ts';

export const PLAYBACK_EVENTS_TABLE = 'playback_events';
/** Views whose events changed, written by the shipper after each batch (the fold's work list). */
export const PLAYBACK_VIEW_MARKS_TABLE = 'playback_view_marks';

/**
 * The columns of `playback_events`, in a spool line's order. `event_id` is unique per event (drawn at
 * intake): a batch shipped twice repeats its ids, and ReplacingMergeTree keeps one. `org_id` and
 * `view_id` come third and fourth: the shipper reads them from each line to mark the views.
 * The fields of one event type are zero or empty on the others: `height`, `bitrate`, `codec`
 * (`rendition`), `seek_from_ms`, `seek_to_ms` (`seek`), `error_code`, `fatal` (`error`),
 * `watched_ms` (`heartbeat`).
 */
export const playbackEventColumns = {
  event_id: 'String',
  received_at: "DateTime('UTC')",
  org_id: 'String',
  view_id: 'String',
  env_id: 'String',
  video_id: 'String',
  type: 'String',
  at_ms: 'UInt32',
  browser: 'String',
  os: 'String',
  player_name: 'String',
  player_version: 'String',
  height: 'UInt16',
  bitrate: 'UInt32',
  codec: 'String',
  seek_from_ms: 'UInt32',
  seek_to_ms: 'UInt32',
  error_code: 'String',
  fatal: 'UInt8',
  watched_ms: 'UInt32',
} as const;

const playbackEventColumnNames = Object.keys(playbackEventColumns);

/** The column list of a CREATE TABLE of `playback_events`. */
export function playbackEventColumnsDdl(): string {
  return Object.entries(playbackEventColumns)
    .map(([name, type]) => `${name} ${type}`)
    .join(',\n        ');
}

/** What delivery knows of a batch besides its events: the video's place, and the viewer's browser. */
export interface PlaybackEventContext {
  orgId: string;
  envId: string;
  videoId: string;
  viewId: string;
  browser: string;
  os: string;
  player: BeaconBatch['player'];
}

/** Encodes checked beacon events as TabSeparated lines, in `playbackEventColumns`' order. */
export class PlaybackEventEncoder {
  private readonly idPrefix = randomBytes(6).toString('base64url');
  private seq = 0;

  /** The lines of one batch's events (each ending in a newline), received now. */
  lines(context: PlaybackEventContext, events: readonly BeaconEvent[]): string {
    const stamp = toClickHouseDateTime(new Date());
    const shared =
      [context.orgId, context.viewId, context.envId, context.videoId].map(tabSeparatedField).join('\t') + '\t';
    const client = [context.browser, context.os, context.player.name, context.player.version]
      .map(tabSeparatedField)
      .join('\t');
    let text = '';
    for (const event of events) {
      const id = `${this.idPrefix}-${(this.seq++).toString(36)}`;
      text += `${id}\t${stamp}\t${shared}${event.type}\t${event.at}\t${client}\t${eventFields(event)}\n`;
    }
    return text;
  }
}

/** The type-specific columns, height to watched_ms. */
function eventFields(event: BeaconEvent): string {
  switch (event.type) {
    case 'rendition':
      return `${event.height}\t${event.bitrate}\t${tabSeparatedField(event.codec)}\t0\t0\t\t0\t0`;
    case 'seek':
      return `0\t0\t\t${event.from}\t${event.to}\t\t0\t0`;
    case 'error':
      return `0\t0\t\t0\t0\t${tabSeparatedField(event.code)}\t${event.fatal ? 1 : 0}\t0`;
    case 'heartbeat':
      return `0\t0\t\t0\t0\t\t0\t${event.watchedMs}`;
    default:
      return '0\t0\t\t0\t0\t\t0\t0';
  }
}

/**
 * Inserts spooled event lines as they are, then marks their views for the fold. After the rows,
 * before the caller forgets them: a crash in between replays both, and both are idempotent.
 */
export async function insertPlaybackEvents(
  client: ClickHouseHttp,
  { data, text }: { data: Buffer; text: string },
): Promise<void> {
  await client.insertEncoded(PLAYBACK_EVENTS_TABLE, playbackEventColumnNames, 'TabSeparated', data);
  await markPlaybackViews(client, viewsOfLines(text));
}

/** The (organization, view) pairs of event lines: their third and fourth fields. */
export function viewsOfLines(text: string): { orgId: string; viewId: string }[] {
  const seen = new Map<string, { orgId: string; viewId: string }>();
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start);
    const fields = text.slice(start, end === -1 ? text.length : end).split('\t', 4);
    if (fields.length < 4) throw new Error(`playback event line without its columns: ${text.slice(start, end)}`);
    const key = `${fields[2]}\t${fields[3]}`;
    if (!seen.has(key))
      seen.set(key, { orgId: fromTabSeparatedField(fields[2]!), viewId: fromTabSeparatedField(fields[3]!) });
    if (end === -1) break;
    start = end + 1;
  }
  return [...seen.values()];
}

/** Marks views for the fold; call after their events were inserted. */
export async function markPlaybackViews(
  client: ClickHouseHttp,
  views: readonly { orgId: string; viewId: string }[],
): Promise<void> {
  if (views.length === 0) return;
  const tuples = views.map((v) => `(${clickHouseString(v.orgId)}, ${clickHouseString(v.viewId)})`).join(', ');
  await client.exec(
    `INSERT INTO ${PLAYBACK_VIEW_MARKS_TABLE} (org_id, view_id, marked_at)
     SELECT pair.1, pair.2, now() FROM (SELECT arrayJoin([${tuples}]) AS pair)`,
  );
}
