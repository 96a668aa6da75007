// One reported view of a <kino-player>: its event sequencer (view-events.ts) fed by the media
// element and hls.js, its beacons' queue (beacon-sender.ts), and the timer and page events that move
// them. The element makes one per source it loads (unless `beacons="off"`) and ends it on the next.
import Hls, { type ErrorData, type LevelSwitchedData } from 'hls.js';
import { BEACON_INTERVAL_MS, BEACONS_PATH } from '@kino/proto/contract';
import { BeaconSender, type BeaconEnvelope } from './beacon-sender.ts';
import { ViewEvents, type MediaEventName } from './view-events.ts';

declare const __KINO_PLAYER_VERSION__: string | undefined;

/** The player's name and version in every batch; the build defines the version from package.json. */
export const playerIdentity = {
  name: '@kino/player',
  version: typeof __KINO_PLAYER_VERSION__ === 'string' ? __KINO_PLAYER_VERSION__ : 'dev',
} as const;

const mediaEvents: readonly MediaEventName[] = ['play', 'playing', 'waiting', 'seeking', 'seeked', 'pause', 'ended'];

/**
 * The video a master playlist's URL names, and the organization and environment of a public-family
 * path: `/v1/private/{id}/`, `/v1/public/{org}/{env}/{id}/`, `/{id}/`; a share link's master
 * (`/v1/share/{linkId}/`) names its link, which delivery takes in the video's place.
 */
export function beaconTargetOf(master: URL): Pick<BeaconEnvelope, 'videoId' | 'orgId' | 'envId'> | null {
  const parts = master.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'v1' && (parts[1] === 'private' || parts[1] === 'share') && parts.length >= 4)
    return { videoId: parts[2]! };
  if (parts[0] === 'v1' && parts[1] === 'public' && parts.length >= 6)
    return { videoId: parts[4]!, orgId: parts[2]!, envId: parts[3]! };
  if (parts[0] !== 'v1' && parts.length === 2) return { videoId: parts[0]! };
  return null;
}

export class ViewReport {
  readonly #events: ViewEvents;
  readonly #sender: BeaconSender;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #detach: (() => void)[] = [];
  /** Set when the page hides for good: the last batch goes by sendBeacon. */
  #pageGoing = false;

  /** `target`: what beaconTargetOf found in `master`. */
  constructor(
    media: HTMLVideoElement,
    master: URL,
    target: Pick<BeaconEnvelope, 'videoId' | 'orgId' | 'envId'>,
    token: string | null,
  ) {
    this.#sender = new BeaconSender(new URL(BEACONS_PATH, master).href, {
      viewId: crypto.randomUUID(),
      ...target,
      ...(token ? { token } : {}),
      player: playerIdentity,
    });
    this.#events = new ViewEvents(
      () => performance.now(),
      (event) => {
        this.#sender.push(event);
        // An ended view (its end, a fatal error, a new source, the page going) is reported at once.
        if (event.type === 'viewend') {
          if (this.#pageGoing) this.#sender.sendBeacon();
          else this.#sender.send();
        }
      },
      () => media.currentTime,
    );
    this.#listen(media, 'timeupdate', () => this.#events.timeUpdate());
    for (const name of mediaEvents) this.#listen(media, name, () => this.#events.media(name));
    this.#listen(media, 'error', () => this.#events.fatalError(`MEDIA_ERR_${media.error?.code ?? 0}`));
    this.#listen(document, 'visibilitychange', () => {
      if (document.visibilityState !== 'hidden') return;
      this.#events.heartbeat();
      this.#sender.sendBeacon();
    });
    this.#listen(window, 'pagehide', () => this.end(true));
    this.#timer = setInterval(() => {
      this.#events.heartbeat();
      this.#sender.send();
    }, BEACON_INTERVAL_MS);
  }

  /** Reports hls.js's rung switches and fatal errors (the ones the element does not recover from). */
  watch(hls: Hls, recovering: (data: ErrorData) => boolean): void {
    hls.on(Hls.Events.LEVEL_SWITCHED, (_event, data: LevelSwitchedData) => {
      const level = hls.levels[data.level];
      if (level) this.#events.rendition(level.height, level.bitrate, level.videoCodec ?? '');
    });
    hls.on(Hls.Events.ERROR, (_event, data: ErrorData) => {
      if (data.fatal && !recovering(data)) this.#events.fatalError(data.details);
    });
  }

  /** Ends the view: `viewend` and the last batch (by sendBeacon when the page is going). */
  end(pageGoing: boolean): void {
    this.#pageGoing = pageGoing;
    this.#events.end();
    clearInterval(this.#timer);
    for (const detach of this.#detach.splice(0)) detach();
  }

  #listen(target: EventTarget, name: string, listener: () => void): void {
    target.addEventListener(name, listener);
    this.#detach.push(() => target.removeEventListener(name, listener));
  }
}
