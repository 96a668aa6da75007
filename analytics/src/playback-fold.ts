// The fold: a view's beacon events (`playback_events`) become its one `playback_views` row once the
// view ended (`viewend`) or went quiet (no event for PLAYBACK_VIEW_QUIET_SECONDS). Like the segment
// rollups (rollups.ts), nothing is incremented: a view is always recomputed from all of its raw
// events (each `event_id` once), and written with `version` = how many distinct events it had. Raw
// events only grow, so the row with the most events is the true one, whatever order two refreshers'
// inserts land in; a late event folds the view again with a larger version, and ReplacingMergeTree
// keeps it (readers use FINAL or the largest version).
//
// Which views to fold. After each batch the delivery shipper marks its views in
// `playback_view_marks` (playback-event.ts), stamped with the store's clock. Each pass of the
// refresher (run by every API process, `startPlaybackViewRefresher`) reads the views marked since its
// watermark minus the overlap and the quiet time: a view marked and not yet ended stays in that
// window until it has been quiet long enough to fold. For those it asks the store, per view, how
// many distinct events it has, whether it ended and when its last event arrived; it reads the events
// of the views that are ready and changed since this refresher last folded them, folds them here
// (`foldView`, the definitions of playback-view.ts in one function that a unit test reads) and
// inserts their rows. The watermark then moves to the newest mark read.
import type { BeaconEventType } from '@kino/proto/contract';
import { beaconEventTypes } from '@kino/proto/contract';
import type { ClickHouseHttp } from './clickhouse.ts';
import { clickHouseString, toClickHouseDateTime } from './clickhouse.ts';
import { PLAYBACK_EVENTS_TABLE, PLAYBACK_VIEW_MARKS_TABLE } from './playback-event.ts';
import { PLAYBACK_VIEWS_TABLE, type playbackViewColumns } from './playback-view.ts';
import { markPlaybackRollupDays } from './experience-rollups.ts';

export const PLAYBACK_FOLD_PROGRESS_TABLE = 'playback_fold_progress';
/** A view with no event for this long is folded as it is (a player that went without a `viewend`). */
export const PLAYBACK_VIEW_QUIET_SECONDS = 120;
/** How often a refresher looks for views to fold. */
export const PLAYBACK_FOLD_INTERVAL_MS = 10_000;
/** Marks stamped this long before the watermark are read again (inserts that were still running). */
const MARK_OVERLAP_SECONDS = 60;
/** Views whose events one query reads. */
const VIEWS_PER_READ = 500;

/** One event as the fold reads it from `playback_events`. */
export interface StoredPlaybackEvent {
  event_id: string;
  /** Unix seconds. */
  received: number;
  org_id: string;
  env_id: string;
  video_id: string;
  view_id: string;
  type: BeaconEventType;
  at_ms: number;
  browser: string;
  os: string;
  player_name: string;
  player_version: string;
  height: number;
  error_code: string;
  fatal: number;
  watched_ms: number;
}

/** A `playback_views` row. */
export type PlaybackViewRow = { [K in keyof typeof playbackViewColumns]: string | number };

const typeOrder = new Map(beaconEventTypes.map((type, index) => [type, index]));

/** When each stall ended: the next `rebufferend`, else the view's end, fatal error or last event. */
function rebufferMs(events: readonly StoredPlaybackEvent[]): number {
  let total = 0;
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.type !== 'rebufferstart') continue;
    const end = events.slice(i + 1).find((e) => e.type === 'rebufferend' || e.type === 'viewend' || e.type === 'error');
    total += (end ?? events.at(-1)!).at_ms - events[i]!.at_ms;
  }
  return total;
}

/** The height played longest: each `rendition` lasts until the next one or the view's last event. */
function longestHeight(events: readonly StoredPlaybackEvent[]): number {
  const spans = new Map<number, number>();
  const last = events.at(-1)?.at_ms ?? 0;
  const switches = events.filter((e) => e.type === 'rendition');
  switches.forEach((e, i) =>
    spans.set(e.height, (spans.get(e.height) ?? 0) + (switches[i + 1]?.at_ms ?? last) - e.at_ms),
  );
  let best = 0;
  let bestMs = -1;
  for (const [height, ms] of spans) if (ms > bestMs) [best, bestMs] = [height, ms];
  return best;
}

/** One view's row from its events (any order, repeats of an `event_id` counted once): playback-view.ts's definitions. */
export function foldView(stored: readonly StoredPlaybackEvent[]): PlaybackViewRow {
  const unique = [...new Map(stored.map((e) => [e.event_id, e])).values()];
  const events = unique.sort(
    (a, b) => a.at_ms - b.at_ms || (typeOrder.get(a.type) ?? 0) - (typeOrder.get(b.type) ?? 0),
  );
  const first = events[0]!;
  const byType = (type: BeaconEventType) => events.find((e) => e.type === type);
  const playRequest = byType('playrequest');
  const firstFrame = byType('firstframe');
  const fatal = events.find((e) => e.type === 'error' && e.fatal === 1);
  const startedAt = Math.min(...events.map((e) => e.received));
  const endedAt = Math.max(...events.map((e) => e.received));
  const started = firstFrame !== undefined;
  return {
    org_id: first.org_id,
    day: toClickHouseDateTime(new Date(startedAt * 1000)).slice(0, 10),
    env_id: first.env_id,
    video_id: first.video_id,
    view_id: first.view_id,
    started_at: toClickHouseDateTime(new Date(startedAt * 1000)),
    ended_at: toClickHouseDateTime(new Date(endedAt * 1000)),
    browser: first.browser,
    os: first.os,
    player_name: first.player_name,
    player_version: first.player_version,
    rendition_height: longestHeight(events),
    play_requested: playRequest ? 1 : 0,
    started: started ? 1 : 0,
    startup_ms: started && playRequest ? Math.max(0, firstFrame.at_ms - playRequest.at_ms) : 0,
    watch_ms: events.reduce((sum, e) => sum + (e.type === 'heartbeat' ? e.watched_ms : 0), 0),
    rebuffer_count: events.filter((e) => e.type === 'rebufferstart').length,
    rebuffer_ms: rebufferMs(events),
    failed: fatal ? 1 : 0,
    error_code: fatal?.error_code ?? '',
    version: events.length,
  };
}

interface ViewSummary {
  org_id: string;
  view_id: string;
  events: number;
  ended: number;
  started: number;
  last_received: number;
  now: number;
}

/** What a refresher remembers between passes: the version it last folded of each view in the window. */
export type FoldMemory = Map<string, { version: number; markedAt: number }>;

/**
 * One pass: folds every view marked since the watermark (minus the overlap and quiet time) that has
 * ended or gone quiet and changed since this refresher folded it. Returns how many views it folded.
 */
export async function refreshPlaybackViews(
  client: ClickHouseHttp,
  { quietSeconds = PLAYBACK_VIEW_QUIET_SECONDS, memory = new Map() as FoldMemory } = {},
): Promise<number> {
  const [progress] = await client.query<{ watermark: number }>(
    `SELECT toUInt32(max(watermark)) AS watermark FROM ${PLAYBACK_FOLD_PROGRESS_TABLE}`,
  );
  const watermark = Number(progress?.watermark ?? 0);
  const since = Math.max(0, watermark - MARK_OVERLAP_SECONDS - quietSeconds);
  const [newest] = await client.query<{ upto: number }>(
    `SELECT toUInt32(max(marked_at)) AS upto FROM ${PLAYBACK_VIEW_MARKS_TABLE} WHERE marked_at >= toDateTime(${since})`,
  );
  const upto = Number(newest?.upto ?? 0);
  const summaries = await client.query<ViewSummary>(
    `SELECT org_id, view_id, uniqExact(event_id) AS events, max(type = 'viewend') AS ended,
            max(type = 'viewstart') AS started, toUInt32(max(received_at)) AS last_received, toUInt32(now()) AS now
     FROM ${PLAYBACK_EVENTS_TABLE}
     WHERE (org_id, view_id) IN (SELECT org_id, view_id FROM ${PLAYBACK_VIEW_MARKS_TABLE} WHERE marked_at >= toDateTime(${since}))
     GROUP BY org_id, view_id`,
  );
  const ready = summaries.filter((view) => {
    // A page going sends its last two batches at once, and they may land in either order: a view
    // whose `viewend` is in but whose `viewstart` is not waits for it (or for the quiet time).
    const whole = Number(view.ended) === 1 && Number(view.started) === 1;
    const quiet = Number(view.last_received) <= Number(view.now) - quietSeconds;
    return (whole || quiet) && (memory.get(view.view_id)?.version ?? 0) < Number(view.events);
  });
  for (let i = 0; i < ready.length; i += VIEWS_PER_READ) {
    const chunk = ready.slice(i, i + VIEWS_PER_READ);
    const rows = await foldViews(client, chunk);
    await client.insert(PLAYBACK_VIEWS_TABLE, rows);
    await markPlaybackRollupDays(client, rows);
    for (const row of rows) memory.set(String(row.view_id), { version: Number(row.version), markedAt: upto });
  }
  for (const [viewId, folded] of memory) if (folded.markedAt < since) memory.delete(viewId);
  if (upto > watermark)
    await client.exec(`INSERT INTO ${PLAYBACK_FOLD_PROGRESS_TABLE} (id, watermark) SELECT 1, toDateTime(${upto})`);
  return ready.length;
}

/** Reads the events of some views and folds each. */
async function foldViews(client: ClickHouseHttp, views: readonly ViewSummary[]): Promise<PlaybackViewRow[]> {
  const pairs = views.map((v) => `(${clickHouseString(v.org_id)}, ${clickHouseString(v.view_id)})`).join(', ');
  const events = await client.query<StoredPlaybackEvent>(
    `SELECT event_id, toUInt32(received_at) AS received, org_id, env_id, video_id, view_id, type, at_ms, browser, os,
            player_name, player_version, height, error_code, fatal, watched_ms
     FROM ${PLAYBACK_EVENTS_TABLE} WHERE (org_id, view_id) IN (${pairs})`,
  );
  const byView = new Map<string, StoredPlaybackEvent[]>();
  for (const event of events) {
    const numeric = {
      ...event,
      received: Number(event.received),
      at_ms: Number(event.at_ms),
      height: Number(event.height),
      fatal: Number(event.fatal),
      watched_ms: Number(event.watched_ms),
    };
    const list = byView.get(event.view_id);
    if (list) list.push(numeric);
    else byView.set(event.view_id, [numeric]);
  }
  return [...byView.values()].map(foldView);
}

export interface PlaybackViewRefresher {
  /** Runs one pass now (after any pass under way); for tests and shutdown. */
  refreshNow(): Promise<number>;
  stop(): void;
}

/** Folds views every `intervalMs`; failures are reported and retried at the next tick. */
export function startPlaybackViewRefresher(
  client: ClickHouseHttp,
  {
    intervalMs = PLAYBACK_FOLD_INTERVAL_MS,
    quietSeconds = PLAYBACK_VIEW_QUIET_SECONDS,
    onError,
  }: { intervalMs?: number; quietSeconds?: number; onError: (error: unknown) => void },
): PlaybackViewRefresher {
  let running: Promise<number> = Promise.resolve(0);
  const memory: FoldMemory = new Map();
  const pass = () =>
    (running = running.catch(() => 0).then(() => refreshPlaybackViews(client, { quietSeconds, memory })));
  const timer = setInterval(() => pass().catch(onError), intervalMs);
  timer.unref();
  return { refreshNow: pass, stop: () => clearInterval(timer) };
}
