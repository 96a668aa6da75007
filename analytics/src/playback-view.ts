// The playback view: one row per view a player reported (issue 58), in `playback_views`. Delivery
// takes the player's beacons (raw events, their own table); a refresher folds each view's events
// into this row once the view ends or goes quiet, and the experience analytics read only these
// rows, never the events. Its columns are declared here only, as the segment row's are.

/** The table each reported view becomes a row of. */
export const PLAYBACK_VIEWS_TABLE = 'playback_views';

/**
 * The columns of `playback_views` and their ClickHouse types. A view folded again (late events)
 * is written again with a larger `version` (the count of its events), and ReplacingMergeTree keeps
 * the last: read with FINAL.
 *
 * - `started`: the view reached its first frame; `startup_ms` (first frame minus play request) is
 *   meaningful only then.
 * - `play_requested` and not `started` and not `failed`: an exit before start.
 * - `failed`: a fatal error ended the view; `error_code` is its code.
 * - `watch_ms`: time playing, from the player's heartbeats; `rebuffer_ms` and `rebuffer_count`:
 *   stalls after the first frame (seeks excluded).
 * - `rendition_height`: the height the view played longest.
 * - `browser`, `os`: from the beacon request's User-Agent, at intake.
 */
export const playbackViewColumns = {
  org_id: 'String',
  day: 'Date',
  env_id: 'String',
  video_id: 'String',
  view_id: 'String',
  started_at: "DateTime('UTC')",
  ended_at: "DateTime('UTC')",
  browser: 'String',
  os: 'String',
  player_name: 'String',
  player_version: 'String',
  rendition_height: 'UInt16',
  play_requested: 'UInt8',
  started: 'UInt8',
  startup_ms: 'UInt32',
  watch_ms: 'UInt64',
  rebuffer_count: 'UInt32',
  rebuffer_ms: 'UInt64',
  failed: 'UInt8',
  error_code: 'String',
  version: 'UInt64',
} as const;

/** The column list of a CREATE TABLE of `playback_views`. */
export function playbackViewColumnsDdl(): string {
  return Object.entries(playbackViewColumns)
    .map(([name, type]) => `${name} ${type}`)
    .join(',\n        ');
}
