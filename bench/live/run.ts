// bench/live: a live stream through the farm (issue 56, item 7; live.md's design, step 11), on a
// farm as bench/startup's (test/farm/farm.ts: API, Temporal, orchestrator, delivery, `kino ingest`,
// two encode nodes of one slot each):
//
// - ffmpeg publishes a 720p30 testsrc with a burnt-in clock (wall time and frame number) and a tone,
//   in real time (`-re`), over RTMP (or `--protocol srt`, to the stream's SRT URL), for `--minutes`;
//   its `-progress` lines, stamped as they arrive, time each frame's push. It also writes what it
//   pushes to a local FLV, the raw ffmpeg's input below.
// - A reader polls the stream's media playlists through delivery (the stream's own public path),
//   every 100 ms, and for each new segment (or part, where the playlist has EXT-X-PART) notes when it
//   first appeared. Glass-to-glass latency is that moment minus the push time of the segment's (or
//   part's) first frame, from the publisher's own clock; the same against the segment's
//   EXT-X-PROGRAM-DATE-TIME is printed beside it, with how far PDT sits from the push time (what PDT
//   is worth as a measure of latency). p50 and p95; segments missed (gaps in their numbers).
// - Encode CPU: the node's ffmpeg (its /proc stat, user + system, sampled every 0.5 s until it
//   exits) against one raw ffmpeg run afterwards with the node's own arguments (read from its
//   /proc/PID/cmdline), only the input (the FLV) and the output directories changed: the bench
//   prints both command lines' differences.
// - `--kill-node`: halfway, the node encoding the broadcast is killed (-9, with its ffmpeg); the
//   bench reports when the last segment came before it and whether (and when) one came after.
// - `--players` (DVR over 2 minutes): once the stream's playlist lists 2.5 minutes or more and the
//   publisher has 1.5 left, hls.js (low-latency mode) and Shaka Player open the stream on two
//   tabs of one Chromium (test/support/players.ts, the live-players test's page and checks).
//   Each is watched at the live edge (behind live by the publisher's clock and by its program
//   date-time, stalls), sent back 120 s and watched playing from there (frames decoded, its
//   date-time, stalls), sent back to live and watched there, then left to play to `ended` once the
//   broadcast ends. Glass-to-glass is also printed for the parts listed while they played (two
//   decoding tabs on the encoder's machine).
//
//   npm run bench:live -- [--minutes 10] [--protocol rtmp|srt] [--latency low|standard] [--kill-node] [--players]
//
// Progress goes to stderr, the figures beside their goals to stdout.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, readlink, rm, stat } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { waitFor, WaitAbortedError } from '@kino/dev';
import { getLiveStream, getVideo } from '@kino/database/repositories';
import type { LiveStream } from '@kino/sdk';
import {
  fatalErrors,
  launchChromium,
  openPlayer,
  returnToLive,
  seekBack,
  startPageHost,
  watchLive,
  webPlayers,
  type LiveWatch,
  type PlayerTab,
  type PublisherClock,
  type SeekBack,
  type WebPlayer,
} from '@kino/test/support/players';
import { startFarm, type Farm, type FarmNodeProcess } from '../../test/farm/farm.ts';
import { watchPublisher, type WatchedPublisher } from '../../test/support/live-publisher.ts';
import { log, median } from '../encode/common.ts';

const { values: options } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    protocol: { type: 'string', default: 'rtmp' },
    latency: { type: 'string', default: 'low' },
    'kill-node': { type: 'boolean', default: false },
    players: { type: 'boolean', default: false },
  },
});
const minutes = Number(options.minutes);
const protocol = options.protocol;
const latencyMode = options.latency as 'low' | 'standard';
const killNode = options['kill-node'];
const withPlayers = options.players;
if (!(minutes > 0)) throw new Error('--minutes: a positive number');
if (protocol !== 'rtmp' && protocol !== 'srt') throw new Error('--protocol: rtmp or srt');
if (latencyMode !== 'low' && latencyMode !== 'standard') throw new Error('--latency: low or standard');
if (withPlayers && killNode)
  throw new Error('--players and --kill-node: one at a time (a takeover would read as a stall)');

const fps = 30;
/** The issue's goals. */
const goals = {
  p50: latencyMode === 'low' ? 2.5 : 15,
  p95: latencyMode === 'low' ? 4 : 15,
  cpuRatio: 1.1,
  killGapSeconds: 5,
  /** `--players`: how far behind live a player may play, and how far back it is sent (DVR). */
  behindLiveSeconds: 4,
  dvrSeconds: 120,
};
/**
 * `--players`: the players open once the playlist lists `openAfterSeconds` (the DVR window must hold
 * 2 minutes and more) and the publisher has `beforeEndSeconds` left (time for their checks, then the
 * end); how long each is watched at the live edge, and played from 2 minutes back.
 */
const playersTiming = {
  openAfterSeconds: 150,
  beforeEndSeconds: 90,
  liveSeconds: 20,
  settledSeconds: 15,
  backSeconds: 10,
};
if (withPlayers && minutes * 60 < playersTiming.openAfterSeconds + playersTiming.beforeEndSeconds) {
  throw new Error(
    `--players: --minutes ${(playersTiming.openAfterSeconds + playersTiming.beforeEndSeconds) / 60} or more`,
  );
}
const ticksPerSecond = 100; // USER_HZ, 100 on Linux everywhere

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');

/** A process's own CPU seconds (user + system), from /proc; undefined once it is gone. */
async function cpuSecondsOf(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/**
 * The live ffmpeg a node runs, if any (a child of the node's process): its pid, its arguments, and
 * the directories under its working directory (its outputs, named relative to it).
 */
async function ffmpegOf(
  node: FarmNodeProcess,
): Promise<{ pid: number; args: string[]; cwd: string; outputDirs: string[] } | undefined> {
  const nodePid = node.process.child.pid!;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent !== nodePid || !stat.includes('(ffmpeg)')) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const args = cmdline.split('\0').filter(Boolean).slice(1);
    // The live encode, not a probe or a picture: it writes HLS.
    if (!args.includes('hls')) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`);
    const outputDirs = (await readdir(cwd, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    return { pid: Number(entry), args, cwd, outputDirs };
  }
  return undefined;
}

/** The publisher: its exit, and each frame's push time (ms since epoch) as far as `-progress` told. */
interface Publisher extends WatchedPublisher {
  startedAt: number;
  /** Ends the publish at once (SIGKILL). */
  kill(): void;
}

function publish(url: string, flv: string, seconds: number): Publisher {
  const clock =
    "drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf:fontsize=48:fontcolor=white:box=1:boxcolor=black@0.6:x=20:y=20:text='%{localtime\\:%T} %{n}'";
  const output = protocol === 'rtmp' ? `[f=flv]${url}` : `[f=mpegts]${url}`;
  const args = [
    ...['-hide_banner', '-nostats', '-loglevel', 'error', '-progress', 'pipe:1', '-stats_period', '0.1', '-re'],
    ...['-f', 'lavfi', '-i', `testsrc=size=1280x720:rate=${fps}:duration=${seconds},${clock}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
    ...['-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '3000k', '-g', '60'],
    ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k'],
    // The tee muxer asks no global header of the encoders; FLV needs one (the avcC and the AAC config).
    ...['-flags:v', '+global_header', '-flags:a', '+global_header', '-f', 'tee', `${output}|[f=flv]${flv}`],
  ];
  const child = spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return { ...watchPublisher(child), startedAt: Date.now(), kill: () => child.kill('SIGKILL') };
}

/** A segment or part of a media playlist: where it starts in the broadcast, and its PDT. */
export interface PlaylistEntry {
  uri: string;
  kind: 'segment' | 'part';
  /** Seconds from the broadcast's start (the durations before it). */
  startSeconds: number;
  /** Its EXT-X-PROGRAM-DATE-TIME (a part's: its segment's plus the parts before it), ms since epoch. */
  pdt: number | undefined;
  /** A segment's number, from its name (`seg-00012.m4s`). */
  number?: number;
  /** Listed after an EXT-X-DISCONTINUITY: made after a gap (a node taking the broadcast over, a publisher back). */
  afterGap: boolean;
}

/** The segments and parts a media playlist lists, in order. */
export function parseMediaPlaylist(text: string): PlaylistEntry[] {
  const entries: PlaylistEntry[] = [];
  let segmentStart = 0;
  let partOffset = 0;
  let segmentPdt: number | undefined;
  let duration = 0;
  let afterGap = false;
  for (const line of text.split('\n')) {
    if (line === '#EXT-X-DISCONTINUITY') afterGap = true;
    if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) segmentPdt = Date.parse(line.slice(25));
    const part = /^#EXT-X-PART:.*?DURATION=([\d.]+).*?URI="([^"]+)"/.exec(line);
    if (part) {
      entries.push({
        uri: part[2]!,
        kind: 'part',
        startSeconds: segmentStart + partOffset,
        pdt: segmentPdt === undefined ? undefined : segmentPdt + partOffset * 1000,
        afterGap,
      });
      partOffset += Number(part[1]);
    }
    const inf = /^#EXTINF:([\d.]+)/.exec(line);
    if (inf) duration = Number(inf[1]);
    if (line && !line.startsWith('#')) {
      const number = /(\d+)\.m4s/.exec(line);
      entries.push({
        uri: line,
        kind: 'segment',
        startSeconds: segmentStart,
        pdt: segmentPdt,
        ...(number ? { number: Number(number[1]) } : {}),
        afterGap,
      });
      segmentStart += duration;
      if (segmentPdt !== undefined) segmentPdt += duration * 1000;
      partOffset = 0;
    }
  }
  return entries;
}

/** One segment or part as the reader first saw it. */
interface Seen extends PlaylistEntry {
  rung: string;
  seenAt: number;
}

/**
 * Polls each media playlist of the stream's master every 100 ms until `stop` says so; notes each
 * segment (or part, when the playlist has parts: then those alone) the first time it is listed, and
 * the segment numbers each rung skipped.
 */
async function readPlaylists(
  master: string,
  stop: () => boolean,
  onVariants: (rungs: string[]) => void,
): Promise<{ seen: Seen[]; missed: number }> {
  const variants = await waitFor(
    'the stream’s master',
    async () => {
      const response = await fetch(master);
      if (response.status !== 200) return undefined;
      return (await response.text())
        .split('\n')
        .filter((line) => line && !line.startsWith('#'))
        .map((uri) => new URL(uri, master).toString());
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  onVariants(variants.map((v) => new URL(v).pathname.split('/').pop()!));
  const seen: Seen[] = [];
  const known = new Set<string>();
  const numbers = new Map<string, Set<number>>();
  // Rungs whose playlist has listed parts: its segments are then not measured, not even once the
  // playlist has ended without parts (the whole recording's segments would read as listed at its end).
  const withParts = new Set<string>();
  // What the first poll finds was listed before the reader looked: noted, not measured.
  let firstPoll = true;
  while (!stop()) {
    await Promise.all(
      variants.map(async (variant) => {
        const response = await fetch(variant).catch(() => undefined);
        if (response?.status !== 200) return;
        const text = await response.text();
        const seenAt = Date.now();
        const rung = new URL(variant).pathname.split('/').pop()!;
        const entries = parseMediaPlaylist(text);
        if (entries.some((entry) => entry.kind === 'part')) withParts.add(rung);
        const hasParts = withParts.has(rung);
        for (const entry of entries) {
          if (entry.number !== undefined)
            (numbers.get(rung) ?? numbers.set(rung, new Set()).get(rung)!).add(entry.number);
          if ((entry.kind === 'part') !== hasParts) continue;
          const key = `${rung}|${entry.uri}`;
          if (known.has(key)) continue;
          known.add(key);
          if (!firstPoll) seen.push({ ...entry, rung, seenAt });
        }
      }),
    );
    firstPoll = false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let missed = 0;
  for (const set of numbers.values()) missed += Math.max(...set) - Math.min(...set) + 1 - set.size;
  return { seen, missed };
}

/** The node's ffmpeg as the bench watched it: its arguments and its CPU seconds when last read. */
interface WatchedEncode {
  node: FarmNodeProcess;
  pid: number;
  args: string[];
  cwd: string;
  outputDirs: string[];
  cpuSeconds: number;
  /**
   * When each file the node's ffmpeg wrote was closed (its mtime: ffmpeg renames a file into place
   * once written), by `<rung dir>/<file>`: what splits a part's latency into the encoder's and the
   * rest's (the node noticing it, the gRPC send, the orchestrator's store and playlist, delivery).
   */
  closedAt: Map<string, number>;
}

/** Notes the close time of the files the node's ffmpeg has written since the last look. */
async function noteClosedFiles(watched: WatchedEncode): Promise<void> {
  for (const rung of watched.outputDirs) {
    const names = await readdir(join(watched.cwd, rung)).catch(() => [] as string[]);
    for (const name of names) {
      const key = `${rung}/${name}`;
      if (!/^(part|seg)-\d+\.m4s$/.test(name) || watched.closedAt.has(key)) continue;
      const info = await stat(join(watched.cwd, rung, name)).catch(() => undefined);
      if (info) watched.closedAt.set(key, info.mtimeMs);
    }
  }
}

/** When the node closed the file a playlist names by `uri` (`…/video-720p/part-00012.m4s`), if seen. */
function closeTimeOf(watched: WatchedEncode, uri: string): number | undefined {
  const [name, parent] = new URL(uri, 'http://x/').pathname.split('/').reverse();
  const rung = watched.outputDirs.find((dir) => parent === dir || parent?.endsWith(`-${dir}`));
  return rung === undefined || name === undefined ? undefined : watched.closedAt.get(`${rung}/${name}`);
}

/** Reads the nodes' live ffmpeg every 0.5 s: which node runs it, its arguments and its CPU so far. */
function watchEncode(nodes: FarmNodeProcess[]): { current: () => WatchedEncode | undefined; stop: () => void } {
  let watched: WatchedEncode | undefined;
  let stopped = false;
  void (async () => {
    while (!stopped) {
      if (!watched) {
        for (const node of nodes) {
          const found = await ffmpegOf(node).catch(() => undefined);
          if (found) watched = { node, ...found, cpuSeconds: 0, closedAt: new Map() };
        }
      } else {
        const cpu = await cpuSecondsOf(watched.pid);
        if (cpu !== undefined) watched.cpuSeconds = cpu;
        await noteClosedFiles(watched);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return { current: () => watched, stop: () => (stopped = true) };
}

/**
 * One raw ffmpeg with the node's arguments, the input the publisher's FLV, run in a directory of its
 * own holding the output directories the node's had (and any absolute output directory moved under
 * it): its CPU seconds (user + system, from bash's `times`) and the arguments that differ.
 */
async function rawLadder(
  { args: nodeArgs, outputDirs }: WatchedEncode,
  flv: string,
  dir: string,
): Promise<{ cpuSeconds: number; changed: string[] }> {
  const cwd = join(dir, 'raw');
  for (const output of outputDirs) await mkdir(join(cwd, output), { recursive: true });
  const inputAt = nodeArgs.indexOf('-i') + 1;
  const dirs = new Map<string, string>();
  const changed: string[] = [];
  const args = nodeArgs.map((arg, k) => {
    if (k === inputAt) {
      changed.push(`input ${redact(arg)} -> ${flv}`);
      return flv;
    }
    if (!arg.startsWith('/')) return arg;
    const parent = arg.slice(0, arg.lastIndexOf('/'));
    if (!dirs.has(parent)) dirs.set(parent, join(cwd, `abs-${dirs.size}`));
    return dirs.get(parent)! + arg.slice(parent.length);
  });
  for (const [from, to] of dirs) {
    changed.push(`output ${from} -> ${to}`);
    await mkdir(to, { recursive: true });
  }
  const { stdout, exitCode, stderr } = await new Promise<{ stdout: string; exitCode: number; stderr: string }>(
    (resolve, reject) => {
      // bash's `times` after ffmpeg: its second line is the children's user and system time.
      const child = spawn('bash', ['-c', '"$@" >/dev/null; rc=$?; times; exit $rc', 'bash', 'ffmpeg', ...args], {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
      child.once('error', reject);
      child.once('close', (code) => resolve({ stdout: out, exitCode: code ?? -1, stderr: err }));
    },
  );
  if (exitCode !== 0) throw new Error(`the raw ladder failed (${exitCode}): ${stderr}`);
  const children = stdout.trim().split('\n').pop()!;
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, sec]) => Number(m) * 60 + Number(sec));
  return { cpuSeconds: seconds[0]! + seconds[1]!, changed };
}

/** What one player did under `--players`, as far as it got. */
interface PlayerRun {
  player: WebPlayer;
  live?: LiveWatch;
  back?: SeekBack;
  returned?: LiveWatch;
  ended?: { ended: boolean; atSeconds: number; publishedSeconds: number };
  /** Why it stopped short: a fatal error, a wait that timed out. */
  failure?: string;
}

/**
 * `--players`: once the stream's playlist lists `playersTiming.openAfterSeconds` and the publisher is
 * `beforeEndSeconds` from the end of its `seconds`, hls.js and Shaka open `master` on two tabs of one
 * Chromium; each is watched at the live edge, sent back `goals.dvrSeconds` and watched there, sent
 * back to live and watched there, then waited on to `ended` once `broadcastEnded` (its video no
 * longer transcoding: on a loaded machine the encoder ends minutes after the publisher). A player's
 * failure is one of its figures, not the bench's end.
 */
async function watchPlayers(
  master: string,
  publisher: Publisher,
  seconds: number,
  broadcastEnded: Promise<unknown>,
): Promise<{ openedAt: number; runs: PlayerRun[] }> {
  const { openAfterSeconds, beforeEndSeconds } = playersTiming;
  let publisherGone = false;
  let broadcastGone = false;
  void publisher.done.then(() => (publisherGone = true));
  void broadcastEnded.then(() => (broadcastGone = true));
  // The DVR window is what the playlist lists, not what was pushed: on a loaded machine the encoder
  // runs minutes behind the publisher.
  await waitFor(
    `${openAfterSeconds} s of broadcast listed, ${beforeEndSeconds} s before the publisher's end`,
    async () => {
      if (broadcastGone) throw new WaitAbortedError(`the broadcast ended before ${openAfterSeconds} s were listed`);
      if (!publisherGone && publisher.framesPushed() < (seconds - beforeEndSeconds) * fps) return undefined;
      const response = await fetch(master);
      if (!response.ok) return undefined;
      const variant = (await response.text()).split('\n').find((line) => line && !line.startsWith('#'));
      const playlist = variant ? await fetch(new URL(variant, master)) : undefined;
      if (!playlist?.ok) return undefined;
      const listed = parseMediaPlaylist(await playlist.text());
      return (listed.at(-1)?.startSeconds ?? 0) >= openAfterSeconds ? true : undefined;
    },
    { timeoutMs: (seconds + 600) * 1000, intervalMs: 1000 },
  );
  log(`the players open: ${webPlayers.join(', ')}`);
  const [browser, host] = await Promise.all([launchChromium(), startPageHost()]);
  const openedAt = Date.now();
  const clock: PublisherClock = { pushedAt: (n) => publisher.pushedAt(n), fps };
  const play = async (player: WebPlayer): Promise<PlayerRun> => {
    const run: PlayerRun = { player };
    let tab: PlayerTab | undefined;
    try {
      tab = await openPlayer(browser, host, { player, src: master });
      const { liveSeconds, settledSeconds, backSeconds } = playersTiming;
      run.live = await watchLive(tab, player, { watchSeconds: liveSeconds, settledSeconds, clock });
      const to = (await tab.outcome()).currentTime - goals.dvrSeconds;
      log(`${player}: back ${goals.dvrSeconds} s, to ${to.toFixed(2)} s`);
      run.back = await seekBack(tab, player, { to, playSeconds: backSeconds, clock });
      const playingAtMs = await returnToLive(tab, player, { pastSeconds: run.back.fromSeconds });
      run.returned = await watchLive(tab, player, {
        watchSeconds: backSeconds,
        settledSeconds: backSeconds - 2,
        clock,
        sinceMs: playingAtMs,
      });
      log(`${player}: back at live; playing on to the end`);
      await broadcastEnded;
      await tab.waitForEnd(60_000);
      const outcome = await tab.outcome();
      run.ended = {
        ended: outcome.ended,
        atSeconds: outcome.currentTime,
        publishedSeconds: publisher.framesPushed() / fps,
      };
      const fatal = fatalErrors(outcome);
      if (fatal.length > 0) run.failure = `${fatal[0]} (${outcome.errors.length} errors in all)`;
    } catch (error) {
      run.failure = error instanceof Error ? error.message : String(error);
    }
    return run;
  };
  try {
    return { openedAt, runs: await Promise.all(webPlayers.map(play)) };
  } finally {
    await browser.close();
    await host.close();
  }
}

/** The `--players` figures, each beside its goal, as `row` prints them. */
function playerRows(runs: PlayerRun[], row: (what: string, value: string, goal: string) => void): void {
  const seconds = (ms: number) => `${f(ms / 1000)} s`;
  const { liveSeconds, settledSeconds, backSeconds } = playersTiming;
  for (const { player, live, back, returned, ended, failure } of runs) {
    if (live) {
      row(
        `${player}: behind live, by the publisher (median ${settledSeconds} s)`,
        seconds(live.behindByPublisherMs),
        `goal ≤ ${goals.behindLiveSeconds} s`,
      );
      row(`${player}:   by its program date-time`, seconds(live.behindByDateMs), `goal ≤ ${goals.behindLiveSeconds} s`);
      row(
        `${player}:   played / stalls in ${liveSeconds} s at the live edge`,
        `${f(live.playedSeconds, 1)} s / ${live.stalls.length}`,
        `goal ${liveSeconds} s / 0`,
      );
    }
    if (back) {
      row(`${player}: DVR: went back`, `${f(back.wentSeconds)} s`, `goal ${goals.dvrSeconds} s`);
      row(`${player}:   its program date-time went back`, seconds(back.dateWentMs), `goal ${goals.dvrSeconds} s`);
      row(
        `${player}:   behind live there, by date-time / publisher`,
        `${f(back.behindByDateMs / 1000, 1)} / ${f(back.behindByPublisherMs / 1000, 1)} s`,
        `≈ ${goals.dvrSeconds} s + behind live`,
      );
      row(
        `${player}:   frames decoded, ${backSeconds} s played from there`,
        String(back.framesDecoded),
        `≥ ${backSeconds * fps} (${fps} fps)`,
      );
      row(`${player}:   stalls once playing from there`, String(back.stalls.length), 'goal 0');
    }
    if (returned) {
      row(
        `${player}: back at live: behind, by the publisher`,
        seconds(returned.behindByPublisherMs),
        `goal ≤ ${goals.behindLiveSeconds} s`,
      );
      row(
        `${player}:   by date-time; stalls in ${backSeconds} s`,
        `${seconds(returned.behindByDateMs)}; ${returned.stalls.length}`,
        'goal 0 stalls',
      );
    }
    if (ended) {
      row(
        `${player}: the end: ${ended.ended ? '`ended` at' : 'no `ended`; stopped at'}`,
        `${f(ended.atSeconds)} s`,
        `goal ${f(ended.publishedSeconds)} s (published)`,
      );
    }
    if (failure) row(`${player}: failed`, '', failure);
  }
}

/** A relay URL without its secrets: the stream key in its path and the play token. */
const redact = (text: string) => text.replace(/sk_[0-9A-Za-z]+/g, 'sk_…').replace(/token=[^&\s]+/g, 'token=…');

const f = (value: number | undefined, digits = 2) =>
  value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);

async function main(): Promise<void> {
  const seconds = Math.round(minutes * 60);
  log(
    `bench:live: ${minutes} min over ${protocol}, latency ${latencyMode}${killNode ? ', a node killed halfway' : ''}; ` +
      `${cpus().length} cores, load ${await loadAverage()}`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'kino-bench-live-'));
  const farm: Farm = await startFarm({ playback: true, ingest: true });
  try {
    const nodes = [await farm.startNode('a', { slots: 1 }), await farm.startNode('b', { slots: 1 })];
    const stream: LiveStream = await farm.kino.liveStreams.create(farm.orgId, farm.envId, {
      name: 'bench',
      latency: latencyMode,
      allowPublicAccess: true,
      reconnectWindowSeconds: 0,
    });
    const url = protocol === 'rtmp' ? `${stream.ingest.rtmp}/${stream.streamKey}` : stream.ingest.srt;
    const flv = join(dir, 'published.flv');
    log(`publishing 1280x720 at ${fps} fps to ${redact(url)}`);
    const publisher = publish(url, flv, seconds);
    // Ingest must take the publisher: the stream turns active within 15 s, or the bench says why not.
    const active = await Promise.race([
      waitFor(
        'the stream to be active',
        async () => (await getLiveStream(farm.db, stream.liveStreamId))?.active_video_id ?? undefined,
        { timeoutMs: 15_000, intervalMs: 200 },
      ).catch(() => undefined),
      publisher.done.then(() => undefined),
    ]);
    if (!active) {
      publisher.kill();
      const ended = await Promise.race([publisher.done, new Promise<undefined>((r) => setTimeout(r, 100, undefined))]);
      throw new Error(
        `ingest did not accept the ${protocol.toUpperCase()} publisher at ${redact(url)}: ` +
          (ended && ended.exitCode !== -1
            ? `ffmpeg exited ${ended.exitCode}: ${ended.stderr.trim()}`
            : 'no broadcast started within 15 s (ffmpeg was still trying to connect)'),
      );
    }
    const videoId = active;
    log(`broadcast ${videoId} started`);
    const encode = watchEncode(nodes);
    let rungs: string[] = [];
    let stopReading = false;
    const master = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${stream.liveStreamId}/master.m3u8`;
    const reading = readPlaylists(
      master,
      () => stopReading,
      (names) => (rungs = names),
    );
    let endOfBroadcast = () => {};
    const broadcastEnded = new Promise<void>((resolve) => (endOfBroadcast = resolve));
    const playing = withPlayers
      ? watchPlayers(master, publisher, seconds, broadcastEnded).catch((error: unknown) =>
          error instanceof Error ? error.message : String(error),
        )
      : undefined;
    let killedAt: number | undefined;
    let killedEncodeCpu: number | undefined;
    if (killNode) {
      await new Promise((resolve) => setTimeout(resolve, (seconds * 1000) / 2));
      const running = encode.current();
      if (!running) throw new Error('no node runs the broadcast halfway through');
      killedEncodeCpu = running.cpuSeconds;
      killedAt = Date.now();
      log(`killing node ${running.node.name} (and its ffmpeg ${running.pid}) at ${new Date(killedAt).toISOString()}`);
      process.kill(running.pid, 'SIGKILL');
      await running.node.process.kill9();
    }
    const published = await publisher.done;
    log(`publisher ended (${published.exitCode})${published.exitCode ? `: ${published.stderr.trim()}` : ''}`);
    // The recording: ready (or failed) once the encoder's input has ended; the reader stops then.
    const final = await waitFor(
      'the broadcast to end',
      async () => {
        const row = await getVideo(farm.db, videoId);
        return row && row.status !== 'transcoding' ? row.status : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    ).catch(() => 'transcoding (still, 3 min after the publisher)');
    endOfBroadcast();
    stopReading = true;
    encode.stop();
    const { seen, missed } = await reading;
    const players = await playing;
    const watched = encode.current();
    const nodeArgs = watched?.args;
    if (nodeArgs) log(`the node's ffmpeg: ${redact(nodeArgs.join(' '))}`);

    // The figures.
    const measured = seen
      .map((entry) => {
        const pushedAt = publisher.pushedAt(Math.round(entry.startSeconds * fps));
        const closedAt = watched && closeTimeOf(watched, entry.uri);
        return {
          ...entry,
          glass: pushedAt === undefined ? undefined : (entry.seenAt - pushedAt) / 1000,
          encoded: pushedAt === undefined || closedAt === undefined ? undefined : (closedAt - pushedAt) / 1000,
          listed: closedAt === undefined ? undefined : (entry.seenAt - closedAt) / 1000,
          fromPdt: entry.pdt === undefined ? undefined : (entry.seenAt - entry.pdt) / 1000,
          pdtOffset: entry.pdt === undefined || pushedAt === undefined ? undefined : (entry.pdt - pushedAt) / 1000,
        };
      })
      .filter((entry) => killedAt === undefined || entry.seenAt < killedAt);
    const glass = measured.flatMap((m) => (m.glass === undefined ? [] : [m.glass]));
    const fromPdt = measured.flatMap((m) => (m.fromPdt === undefined ? [] : [m.fromPdt]));
    const offsets = measured.flatMap((m) => (m.pdtOffset === undefined ? [] : [m.pdtOffset]));
    const encoded = measured.flatMap((m) => (m.encoded === undefined ? [] : [m.encoded]));
    const listed = measured.flatMap((m) => (m.listed === undefined ? [] : [m.listed]));
    const kind = seen.some((entry) => entry.kind === 'part') ? 'parts' : 'segments';

    let cpu: { node: number; raw: number; changed: string[] } | undefined;
    if (nodeArgs && !killNode) {
      log('the raw ladder: the node’s ffmpeg arguments over the published FLV');
      const raw = await rawLadder(watched!, flv, dir);
      cpu = { node: watched!.cpuSeconds, raw: raw.cpuSeconds, changed: raw.changed };
    }

    const out: string[] = [];
    const row = (what: string, value: string, goal: string) =>
      out.push(`${what.padEnd(52)} ${value.padStart(14)}   ${goal}`);
    out.push(
      `bench:live — ${minutes} min of 1280x720 at ${fps} fps over ${protocol.toUpperCase()}, latency ${latencyMode}, ` +
        `rungs ${rungs.join(', ')}; load ${await loadAverage()} at the end`,
    );
    row(`${kind} measured (every rung)`, String(measured.length), '');
    row('glass-to-glass p50 (push of its first frame → listed)', `${f(median(glass))} s`, `goal ≤ ${goals.p50} s`);
    row('glass-to-glass p95', `${f(quantile(glass, 0.95))} s`, `goal ≤ ${goals.p95} s`);
    row(
      '  push → closed on the node, p50 / p95',
      `${f(median(encoded))} / ${f(quantile(encoded, 0.95))} s`,
      'publisher, relay, the node’s ffmpeg',
    );
    row(
      '  closed on the node → listed, p50 / p95',
      `${f(median(listed))} / ${f(quantile(listed, 0.95))} s`,
      'node scan, gRPC, store, playlist, delivery, poll',
    );
    if (players && typeof players !== 'string') {
      // Two tabs decoding beside the publisher and the encoder take their share of the machine.
      const during = measured.flatMap((m) => (m.glass === undefined || m.seenAt < players.openedAt ? [] : [m.glass]));
      row(
        '  while the players played, p50 / p95',
        `${f(median(during))} / ${f(quantile(during, 0.95))} s`,
        `${during.length} ${kind}`,
      );
    }
    row('listed − EXT-X-PROGRAM-DATE-TIME, p50', `${f(median(fromPdt))} s`, '');
    row('listed − EXT-X-PROGRAM-DATE-TIME, p95', `${f(quantile(fromPdt, 0.95))} s`, '');
    row(
      'PDT − push time of that frame (median; min, max)',
      `${f(median(offsets))} s`,
      `${f(Math.min(...offsets))}, ${f(Math.max(...offsets))} s`,
    );
    row(`${kind} missed (gaps in segment numbers)`, String(missed), 'goal 0');
    // Whether the publisher itself kept real time (`-re` on a loaded machine may not): media seconds a wall second.
    const [[firstFrame, firstAt], [lastFrame, lastAt]] = [publisher.progress[0]!, publisher.progress.at(-1)!];
    row(
      'the publisher’s pace (media s per wall s)',
      f((lastFrame - firstFrame) / fps / ((lastAt - firstAt) / 1000)),
      'real time is 1.00',
    );
    // Whether the node's encoder kept real time: a starved one falls behind, and every figure above with it.
    const closed = measured.filter((m) => m.encoded !== undefined).sort((a, b) => a.startSeconds - b.startSeconds);
    if (closed.length > 1) {
      const [first, last] = [closed[0]!, closed.at(-1)!];
      const wallSeconds = last.encoded! - first.encoded! + (last.startSeconds - first.startSeconds);
      row(
        'the node’s encoder pace (media s per wall s)',
        f((last.startSeconds - first.startSeconds) / wallSeconds),
        'real time is 1.00',
      );
    }
    if (cpu) {
      row('encode CPU: the node’s ffmpeg', `${f(cpu.node, 1)} s`, '');
      row('encode CPU: one raw ffmpeg, the same arguments', `${f(cpu.raw, 1)} s`, '');
      row('ratio', `${f(cpu.node / cpu.raw)}×`, `goal ≤ ${goals.cpuRatio}×`);
      out.push(`  the raw ffmpeg's arguments differ from the node's only in: ${cpu.changed.join('; ')}`);
    }
    if (killedAt !== undefined) {
      const before = seen.filter((entry) => entry.seenAt < killedAt!).map((entry) => entry.seenAt);
      // The new node's: listed after the discontinuity (a part of the lost node's stored just after the kill is not).
      const after = seen.filter((entry) => entry.seenAt >= killedAt! && entry.afterGap).map((entry) => entry.seenAt);
      row(
        'node killed: last new segment before the kill',
        `${f((killedAt - Math.max(...before)) / 1000, 1)} s before`,
        '',
      );
      row(
        `node killed: first new ${kind === 'parts' ? 'part' : 'segment'} after the discontinuity`,
        after.length ? `${f((Math.min(...after) - killedAt) / 1000, 1)} s after` : 'none',
        `goal ≤ ${goals.killGapSeconds} s`,
      );
      row('node killed: the node’s ffmpeg had used', `${f(killedEncodeCpu, 1)} s CPU`, '');
    }
    if (typeof players === 'string') row('players (--players)', 'failed', players);
    else if (players) playerRows(players.runs, row);
    row('the broadcast’s video at the end', String(final), '');
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await farm.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
