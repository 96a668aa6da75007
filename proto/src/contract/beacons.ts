// Player beacons (issue 58; docs/decisions/player.md "Beacons"): what <kino-player> reports of each
// view to the delivery host that served it, `POST {delivery}/v1/beacons` → 202. The player sends
// these shapes and delivery checks them (delivery/src/beacons.ts); both take the names and limits
// from here.

/** Where a player posts its beacons, on the delivery host that served the master. */
export const BEACONS_PATH = '/v1/beacons';
/** The most events one request carries; a player splits a larger batch. */
export const BEACON_MAX_EVENTS = 100;
/** The largest body one request may have, in bytes; a player splits a larger batch. */
export const BEACON_MAX_BYTES = 64 * 1024;
/** A player sends its queue at least this often while it holds events, and sends a heartbeat this often while playing. */
export const BEACON_INTERVAL_MS = 10_000;
/** A player sends its queue at once when it holds this many events. */
export const BEACON_BATCH_EVENTS = 50;
/** The latest `at` an event may carry (a day after its view started). */
export const BEACON_MAX_AT_MS = 86_400_000;

/** The events of a view, in the order a view usually lives them. */
export const beaconEventTypes = [
  'viewstart',
  'playrequest',
  'firstframe',
  'rebufferstart',
  'rebufferend',
  'rendition',
  'seek',
  'error',
  'heartbeat',
  'viewend',
] as const;
export type BeaconEventType = (typeof beaconEventTypes)[number];

/** Every event says when it happened: milliseconds since its view's `viewstart`. */
interface At {
  at: number;
}

export type BeaconEvent =
  | (At & { type: 'viewstart' | 'playrequest' | 'firstframe' | 'rebufferstart' | 'rebufferend' | 'viewend' })
  /** hls.js switched to another rung. */
  | (At & { type: 'rendition'; height: number; bitrate: number; codec: string })
  /** The viewer moved from `from` to `to` (media time, ms): not a rebuffer. */
  | (At & { type: 'seek'; from: number; to: number })
  /** A fatal error ended playback (`code`: hls.js's error details, or `MEDIA_ERR_<n>` of the element's). */
  | (At & { type: 'error'; code: string; fatal: boolean })
  /** Time spent playing since the previous heartbeat (watch time is their sum). */
  | (At & { type: 'heartbeat'; watchedMs: number });

/** One request's body. */
export interface BeaconBatch {
  /** A UUID the player draws for each view. */
  viewId: string;
  videoId: string;
  /** The playback token, for a private video (its beacons are refused without it). */
  token?: string;
  /** The organization and environment of a public-family master (`/v1/public/{org}/{env}/{id}/`): they must be the video's. */
  orgId?: string;
  envId?: string;
  player: { name: string; version: string };
  events: BeaconEvent[];
}
