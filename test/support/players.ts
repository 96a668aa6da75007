// Web players in a real browser, for tests that play Kino's output as a viewer would: Debian's
// Chromium (headless, through playwright-core) and the players sites use, hls.js and Shaka Player,
// both from npm. Pages come from a host of their own on loopback, another origin than delivery's, so
// CORS is exercised as a site would use it.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { waitFor, WaitAbortedError } from '@kino/dev';

const resolve = createRequire(import.meta.url).resolve;
/** The players' scripts, by the path pages load them from. */
const scripts: Record<string, Buffer> = {
  '/hls.min.js': readFileSync(resolve('hls.js/dist/hls.min.js')),
  '/shaka-player.compiled.js': readFileSync(resolve('shaka-player/dist/shaka-player.compiled.js')),
};

/** Headless Chromium from Debian's package, allowed to autoplay. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

export interface PageHost {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves the players' scripts (`/hls.min.js`, `/shaka-player.compiled.js`), `playerPage` at
 * `/player`, and `pages`, each HTML page at its path (any query string).
 */
export async function startPageHost(pages: Record<string, string> = {}): Promise<PageHost> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    const script = scripts[path];
    const page = path === '/player' ? playerPage : pages[path];
    if (script) res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    else if (page !== undefined) res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
    else res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

export type WebPlayer = 'hls.js' | 'shaka';
export const webPlayers: readonly WebPlayer[] = ['hls.js', 'shaka'];

/** What `playerPage` saw, left on its window.playback. */
export interface PlayerOutcome {
  ended: boolean;
  /** Every error the player or the video element reported, `(fatal)` on those that stop playback. */
  errors: string[];
  /** At `ended` (or when the wait gave up): where playback stood, the media's duration, frames through the decoder. */
  currentTime: number;
  duration: number;
  frames: number;
  /** The media element's buffered ranges. */
  buffered: [number, number][];
  /** Every URL the page requested, in order (its resource timing entries): the playlists and segments. */
  requested: string[];
  /**
   * When the first decoded frame was presented (requestVideoFrameCallback's `now`), in ms from the
   * page's navigation start (`timeOrigin`, epoch ms); null until then.
   */
  firstFrameMs: number | null;
  timeOrigin: number;
  /** The media element's seekable range, [start, end] (a live stream's DVR window); null when it has none. */
  seekable: [number, number] | null;
  /**
   * Each stall after the first frame: a `waiting` event of the media element, or Shaka's `buffering`
   * starting (when, ms since epoch, and the playhead then). A seek's own wait shows here too.
   */
  stalls: { atMs: number; currentTime: number }[];
  /**
   * Every 250 ms after the first frame: when (ms since epoch), the playhead, and the wall-clock time
   * of the picture shown as the player reads it from `EXT-X-PROGRAM-DATE-TIME` (hls.js's
   * `playingDate`, Shaka's `getPlayheadTimeAsDate()`; null while it has none).
   */
  samples: { atMs: number; currentTime: number; programDateTimeMs: number | null }[];
  /**
   * hls.js's own log (its `debug` output), the last lines, each with the seconds since the page
   * loaded: what it loaded, appended and decided, for a player that did not do what it should
   * (docs/decisions/live.md, "The end of a broadcast"). Empty with Shaka.
   */
  log: string[];
}

/**
 * A page that plays `?src=` (an HLS master or media playlist) with `?player=` (hls.js or shaka),
 * with default settings but low-latency mode set explicitly (both players' default today), from the
 * start (a live stream: its live edge) to its `ended` event at `?rate=` times real time.
 * `window.seekTo(seconds)`, `window.seekToLive()` and `window.setRate(rate)` drive it.
 */
const playerPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Kino playback</title>
<script src="/hls.min.js"></script><script src="/shaka-player.compiled.js"></script></head>
<body><video id="v" muted playsinline></video>
<script>
  const outcome = { ended: false, errors: [], currentTime: 0, duration: 0, frames: 0, buffered: [], requested: [], firstFrameMs: null, timeOrigin: performance.timeOrigin, seekable: null, stalls: [], samples: [], log: [] };
  window.playback = outcome;
  performance.setResourceTimingBufferSize(10000);
  const video = document.getElementById('v');
  const query = new URLSearchParams(location.search);
  const src = query.get('src');
  let programDateTime = () => null;
  const note = () => {
    outcome.currentTime = video.currentTime;
    outcome.duration = video.duration;
    outcome.frames = video.getVideoPlaybackQuality().totalVideoFrames;
    outcome.buffered = Array.from({ length: video.buffered.length }, (_, i) => [video.buffered.start(i), video.buffered.end(i)]);
    outcome.requested = performance.getEntriesByType('resource').map((entry) => entry.name);
    outcome.seekable = video.seekable.length > 0 ? [video.seekable.start(0), video.seekable.end(video.seekable.length - 1)] : null;
    if (outcome.firstFrameMs !== null) outcome.samples.push({ atMs: Date.now(), currentTime: video.currentTime, programDateTimeMs: programDateTime() });
  };
  setInterval(note, 250);
  video.requestVideoFrameCallback((now) => { outcome.firstFrameMs = now; });
  const stalled = () => { if (outcome.firstFrameMs !== null) outcome.stalls.push({ atMs: Date.now(), currentTime: video.currentTime }); };
  video.addEventListener('waiting', stalled);
  window.seekTo = (seconds) => { video.currentTime = seconds; };
  window.seekToLive = () => {};
  window.setRate = (rate) => { video.playbackRate = rate; };
  video.addEventListener('ended', () => { note(); outcome.ended = true; });
  video.addEventListener('error', () => outcome.errors.push('video element: ' + (video.error && video.error.message) + ' (fatal)'));
  const play = () => {
    video.playbackRate = Number(query.get('rate') || 1);
    video.play().catch((error) => outcome.errors.push('play(): ' + error.message + ' (fatal)'));
  };
  if (query.get('player') === 'hls.js') {
    if (!Hls.isSupported()) outcome.errors.push('hls.js is not supported in this browser (fatal)');
    // Catching up (up to 1.5x) to its target latency is what sites playing low-latency HLS turn on:
    // by default hls.js never does, and a player that started late (on a loaded machine, a
    // playlist fetched long before the first part came) stays that far behind.
    const keep = (level) => (...args) => {
      outcome.log.push((performance.now() / 1000).toFixed(3) + ' ' + level + ' ' + args.map(String).join(' '));
      if (outcome.log.length > 400) outcome.log.splice(0, 100);
    };
    const debug = { log: keep('log'), debug: () => {}, info: keep('info'), warn: keep('warn'), error: keep('error') };
    const hls = new Hls({ lowLatencyMode: true, maxLiveSyncPlaybackRate: 1.5, debug });
    window.seekToLive = () => { video.currentTime = hls.liveSyncPosition; };
    programDateTime = () => (hls.playingDate ? hls.playingDate.getTime() : null);
    // A network error names its URL and HTTP status, as Shaka's do (a bare fragLoadError says nothing of which).
    const request = (data) => data.type === Hls.ErrorTypes.NETWORK_ERROR
      ? ' ' + [data.frag?.url ?? data.context?.url ?? data.url, data.response?.code].filter((x) => x !== undefined).join(' ')
      : '';
    hls.on(Hls.Events.ERROR, (_event, data) => outcome.errors.push(data.type + '/' + data.details + request(data) + (data.fatal ? ' (fatal)' : '')));
    hls.on(Hls.Events.MANIFEST_PARSED, play);
    hls.loadSource(src);
    hls.attachMedia(video);
  } else {
    shaka.polyfill.installAll();
    if (!shaka.Player.isBrowserSupported()) outcome.errors.push('Shaka Player is not supported in this browser (fatal)');
    const player = new shaka.Player();
    player.configure({ streaming: { lowLatencyMode: true } });
    window.seekToLive = () => player.goToLive();
    programDateTime = () => player.getPlayheadTimeAsDate().getTime();
    player.addEventListener('buffering', (event) => { if (event.buffering) stalled(); });
    // A network error's data begins with the URL and the HTTP status.
    const network = (error) => (error.category === shaka.util.Error.Category.NETWORK ? ' ' + error.data.slice(0, 2).join(' ') : '');
    const describe = (error) => 'shaka ' + error.code + network(error) + (error.severity === shaka.util.Error.Severity.CRITICAL ? ' (fatal)' : '');
    player.addEventListener('error', (event) => outcome.errors.push(describe(event.detail)));
    player.attach(video).then(() => player.load(src)).then(play, (error) => outcome.errors.push(describe(error) + ' (fatal)'));
  }
</script></body></html>`;

/** The URL of `playerPage` on `host` playing `src` with `player`. */
export function playerPageUrl(
  host: PageHost,
  { player, src, rate = 1 }: { player: WebPlayer; src: string; rate?: number },
) {
  return `${host.origin}/player?${new URLSearchParams({ player, src, rate: String(rate) })}`;
}

/** A player playing on its own tab of `playerPage`. */
export interface PlayerTab {
  tab: Page;
  /** What the page has seen so far. */
  outcome(): Promise<PlayerOutcome>;
  /** Waits until `ended` or a fatal error (false when `timeoutMs` passed first: a stall). */
  waitForEnd(timeoutMs: number): Promise<boolean>;
  seekTo(seconds: number): Promise<void>;
  /** Back to the live edge, as the player places it. */
  seekToLive(): Promise<void>;
  setRate(rate: number): Promise<void>;
  close(): Promise<void>;
}

type PlayerWindow = {
  playback: PlayerOutcome;
  seekTo(seconds: number): void;
  seekToLive(): void;
  setRate(rate: number): void;
};

/** Opens `playerPage` (at `host`) on a new tab of `browser`, playing `src` with `player`. */
export async function openPlayer(
  browser: Browser,
  host: PageHost,
  { player, src, rate = 1 }: { player: WebPlayer; src: string; rate?: number },
): Promise<PlayerTab> {
  const tab = await browser.newPage();
  await tab.goto(playerPageUrl(host, { player, src, rate }));
  return {
    tab,
    outcome: () => tab.evaluate(() => (window as unknown as PlayerWindow).playback),
    waitForEnd: (timeoutMs) =>
      tab
        .waitForFunction(
          () => {
            const outcome = (window as unknown as PlayerWindow).playback;
            return outcome.ended || outcome.errors.some((e) => e.endsWith('(fatal)'));
          },
          undefined,
          { timeout: timeoutMs, polling: 100 },
        )
        .then(
          () => true,
          () => false,
        ),
    seekTo: (seconds) => tab.evaluate((to) => (window as unknown as PlayerWindow).seekTo(to), seconds),
    seekToLive: () => tab.evaluate(() => (window as unknown as PlayerWindow).seekToLive()),
    setRate: (to) => tab.evaluate((r) => (window as unknown as PlayerWindow).setRate(r), to),
    close: () => tab.close(),
  };
}

/**
 * Plays `src` with `player` on `playerPage` (at `host`) until `ended`, a fatal error, or
 * `timeoutMs`, and answers what the page saw: a stall shows as `ended` false.
 */
export async function playThrough(
  browser: Browser,
  host: PageHost,
  { player, src, rate = 1, timeoutMs = 60_000 }: { player: WebPlayer; src: string; rate?: number; timeoutMs?: number },
): Promise<PlayerOutcome> {
  const playing = await openPlayer(browser, host, { player, src, rate });
  try {
    await playing.waitForEnd(timeoutMs); // a stall: the outcome says where it stood
    return await playing.outcome();
  } finally {
    await playing.close();
  }
}

// A live stream as its viewer sees it: at the live edge, gone back through the DVR window, back at
// live (the live-players test's checks, and bench:live's `--players` over 2 minutes).

/** The errors that stopped playback. */
export function fatalErrors(outcome: PlayerOutcome): string[] {
  return outcome.errors.filter((e) => e.endsWith('(fatal)'));
}

/** The player's errors, the first few (a player retrying a live stream repeats one). */
export function describeErrors(player: WebPlayer, outcome: PlayerOutcome): string {
  return `${player}: ${outcome.errors.slice(0, 3).join('; ')}${outcome.errors.length > 3 ? ` (${outcome.errors.length} in all)` : ''}`;
}

type Sample = PlayerOutcome['samples'][number];

/** A live publisher's clock: when frame `n` of the broadcast (from 0) was pushed, ms since epoch. */
export interface PublisherClock {
  pushedAt(n: number): number | undefined;
  fps: number;
}

function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * How far behind live the picture was at each sample, median (ms): by the publisher's clock (now
 * less the push of the frame on screen, `currentTime × fps`: both players' timelines start at the
 * broadcast's first frame), the viewer's real delay; and by the program date-time the player reads
 * (what a site shows).
 */
function behindLive(samples: Sample[], clock: PublisherClock): { byPublisherMs: number; byDateMs: number } {
  return {
    byPublisherMs: middle(samples.map((s) => s.atMs - clock.pushedAt(Math.floor(s.currentTime * clock.fps))!)),
    byDateMs: middle(samples.map((s) => s.atMs - s.programDateTimeMs!)),
  };
}

/** A live player watched a while. */
export interface LiveWatch {
  outcome: PlayerOutcome;
  /** The samples watched. */
  window: Sample[];
  /** How far the playhead went over them (s). */
  playedSeconds: number;
  /** Behind live over the window's last `settledSeconds`, median (ms). */
  behindByPublisherMs: number;
  behindByDateMs: number;
  /** The stalls from the window's start on. */
  stalls: PlayerOutcome['stalls'];
}

/**
 * Waits until `tab` has played `watchSeconds` from its first sample at or after `sinceMs` (from its
 * first frame when not given), and answers how it played; throws on a fatal error.
 */
export async function watchLive(
  tab: PlayerTab,
  player: WebPlayer,
  {
    watchSeconds,
    settledSeconds,
    clock,
    sinceMs = 0,
    timeoutMs = 60_000,
  }: { watchSeconds: number; settledSeconds: number; clock: PublisherClock; sinceMs?: number; timeoutMs?: number },
): Promise<LiveWatch> {
  const outcome = await waitFor(
    `${player} to have played ${watchSeconds} s live`,
    async () => {
      const now = await tab.outcome();
      if (fatalErrors(now).length > 0) throw new WaitAbortedError(describeErrors(player, now));
      const watched = now.samples.filter((s) => s.atMs >= sinceMs);
      const [first, last] = [watched[0], watched.at(-1)];
      return first && last && last.atMs - first.atMs >= watchSeconds * 1000 ? now : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
  const startMs = outcome.samples.find((s) => s.atMs >= sinceMs)!.atMs;
  const window = outcome.samples.filter((s) => s.atMs >= startMs && s.atMs - startMs <= watchSeconds * 1000);
  const settled = window.filter((s) => s.atMs - startMs >= (watchSeconds - settledSeconds) * 1000);
  const behind = behindLive(settled, clock);
  return {
    outcome,
    window,
    playedSeconds: window.at(-1)!.currentTime - window[0]!.currentTime,
    behindByPublisherMs: behind.byPublisherMs,
    behindByDateMs: behind.byDateMs,
    stalls: outcome.stalls.filter((s) => s.atMs >= sinceMs),
  };
}

/** A live player sent back through the DVR window, then played from there. */
export interface SeekBack {
  /** Where the playhead stood at the seek (s). */
  fromSeconds: number;
  /** How far back it went: the playhead (s), and the program date-time on screen at the same instant (ms). */
  wentSeconds: number;
  dateWentMs: number;
  /** Behind live while it played on from there, median (ms). */
  behindByPublisherMs: number;
  behindByDateMs: number;
  /** Frames the decoder presented from the seek on. */
  framesDecoded: number;
  /** The stalls once it played on from where it went (a second on: the seek's own wait is not one). */
  stalls: PlayerOutcome['stalls'];
}

/**
 * Seeks `tab` to `to` seconds and waits until it has played `playSeconds` from there (nearer `to`
 * than where it was); throws on a fatal error.
 */
export async function seekBack(
  tab: PlayerTab,
  player: WebPlayer,
  {
    to,
    playSeconds,
    clock,
    timeoutMs = 30_000,
  }: { to: number; playSeconds: number; clock: PublisherClock; timeoutMs?: number },
): Promise<SeekBack> {
  const before = await tab.outcome();
  await tab.seekTo(to);
  const seekedAtMs = Date.now();
  const nearer = (before.currentTime + to) / 2;
  const { now, since } = await waitFor(
    `${player} to play ${playSeconds} s from ${to.toFixed(2)} s`,
    async () => {
      const now = await tab.outcome();
      if (fatalErrors(now).length > 0) throw new WaitAbortedError(describeErrors(player, now));
      const since = now.samples.filter((s) => s.atMs > seekedAtMs && s.currentTime < nearer);
      return since.length > 0 && since.at(-1)!.currentTime - since[0]!.currentTime >= playSeconds
        ? { now, since }
        : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
  const last = before.samples.at(-1)!;
  const resumed = since.find((s) => s.currentTime >= since[0]!.currentTime + 1) ?? since.at(-1)!;
  const behind = behindLive(
    since.filter((s) => s.atMs >= resumed.atMs),
    clock,
  );
  return {
    fromSeconds: before.currentTime,
    wentSeconds: before.currentTime - since[0]!.currentTime,
    dateWentMs: behind.byDateMs - (last.atMs - last.programDateTimeMs!),
    behindByPublisherMs: behind.byPublisherMs,
    behindByDateMs: behind.byDateMs,
    framesDecoded: now.frames - before.frames,
    stalls: now.stalls.filter((s) => s.atMs >= resumed.atMs),
  };
}

/**
 * Sends `tab` back to the live edge as its player places it, and waits until it plays there: past
 * `pastSeconds`, then on by a second. Answers when it was seen playing (ms since epoch): the seek's
 * own wait is over by then.
 */
export async function returnToLive(
  tab: PlayerTab,
  player: WebPlayer,
  { pastSeconds, timeoutMs = 30_000 }: { pastSeconds: number; timeoutMs?: number },
): Promise<number> {
  await tab.seekToLive();
  const sentAtMs = Date.now();
  return waitFor(
    `${player} back at the live edge`,
    async () => {
      const now = await tab.outcome();
      if (fatalErrors(now).length > 0) throw new WaitAbortedError(describeErrors(player, now));
      const there = now.samples.filter((s) => s.atMs > sentAtMs && s.currentTime > pastSeconds);
      return there.find((s) => s.currentTime >= there[0]!.currentTime + 1)?.atMs;
    },
    { timeoutMs, intervalMs: 250 },
  );
}
