// bench/encode: just-in-time segments (issue 35) against publishing a video whole, on a farm of two
// encode nodes of one slot each, as the dev stack runs them (`kino dev` on this machine), with a
// delivery node, for 1080p30 sources with audio (benchSource) on the presets asked for, submitted
// through the SDK with the ladder's default compressionRatio (the spec's default, printed). For each
// source and preset, each run makes three videos of the same source, in alternating order (off,
// on, on with a viewer; then the reverse), so drift in the machine's load falls on every side alike:
//
//   off     JUST_IN_TIME off: `ready` once every segment of every rendition is made;
//   on      just in time, nobody watching: `ready` with the first segment, the rest in the background;
//   viewer  just in time, and a viewer who starts at `ready` in hls.js in Chromium (playwright-core).
//
// It measures the issue's three goals:
// 1. From the process call to `ready` (the video row's ready_at): just in time at most 3 s at every
//    length; beside it the same video's time with just in time off, and the median of the paired
//    ratios (each just-in-time video of a run over that run's off video).
// 2. The viewer: plays at 1x for up to 24 s of the video, then seeks to 25 %, 50 %, 90 % and a
//    random point, playing 2 s after each. Every stall (the video element's `waiting` to `playing`
//    while playing, not seeking) and the start (from loading the player to currentTime advancing)
//    are recorded; goal: none over 1 s, the start included. Each seek is timed from setting
//    currentTime to currentTime advancing past the target; goal: each within 3 s.
// 3. Encode CPU: the two node processes' CPU (utime + stime + cutime + cstime of /proc/<pid>/stat:
//    ffmpeg and ffprobe run as their children and are reaped before their activity returns), read
//    before the process call and after the workflow ends (the ladder complete, segments_pending
//    false): the probe, thumbnail, storyboard and every encode. Goal: with a viewer at most 1.1x
//    the same source's CPU with nobody watching (median of paired ratios); the off CPU beside it.
// And what bounds them: from the nodes' logs, the first run's encode (one 6 s segment of every
// H.264 rendition, on one node, what `ready` waits for) and a 12 s background run's; for each wait
// of the viewer of a second or more, the run that made its segment (urgent or background, when it
// started against the wait, its encode); how fast the farm makes the ladder (seconds of video per
// second); the rest of the machine's CPU meanwhile (anything else running slows the encodes); and,
// with the farm stopped, the first run's ffmpeg command alone on the machine (wall and CPU time).
//
//   node --import tsx bench/encode/just-in-time.ts [--lengths 10,60] [--presets standard,high] [--runs 1]
//   npm run bench:encode:jit -- --lengths 300 --presets standard --runs 3
//
// The defaults (one run: three videos per source and preset) take 8 to 11 minutes on a 2-core
// machine; more runs give medians of several pairs. 300 and 1200 s sources run when asked: a run of
// 300 s on one preset takes 9 to 15 minutes there, a 1200 s source its full encode three times per
// run. Just in time is switched per video with the environment's own setting
// (`kino.environments.update`, read once per video when its processing starts), so the
// orchestrator is never restarted between runs. The browser runs on the same machine as the farm
// and its decoding shares the cores with the encodes, as it would not for a real viewer.
// Progress and each video's figures go to stderr; the tables and the goals to stdout.
import { execFile } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { getVideo } from '@kino/database/repositories';
import { planLadder, type ProcessVideoResult } from '@kino/orchestrator';
import { hlsLadderArgs, probeMedia } from '@kino/ffmpeg';
import { resolveHlsSettings } from '@kino/encode-node';
import { defaultEncodingParameters, workflowIds, type VideoQuality } from '@kino/proto/contract';
import { launchChromium, startPageHost, type PageHost } from '@kino/test/support/players';
import { nodeJobs, startFarm, type Farm, type FarmNodeProcess } from '../../test/farm/farm.ts';
import { benchSource, log, median, submitBenchVideo } from './common.ts';

const { values: options } = parseArgs({
  options: {
    lengths: { type: 'string', default: '10,60' },
    presets: { type: 'string', default: 'standard,high' },
    runs: { type: 'string', default: '1' },
  },
});
const lengths = options.lengths.split(',').map(Number);
const presets = options.presets.split(',') as VideoQuality[];
const runs = Number(options.runs);
if (lengths.some((l) => !(l > 0)) || !(runs >= 1))
  throw new Error('--lengths are seconds (10,60,300,1200), --runs a count');
for (const preset of presets)
  if (!['standard', 'high', 'ultra'].includes(preset))
    throw new Error(`--presets: standard, high or ultra, not ${preset}`);
const compressionRatio = defaultEncodingParameters.compressionRatio;

/** The issue's goals. */
const readyGoalMs = 3_000;
const stallGoalMs = 1_000;
const seekGoalMs = 3_000;
const cpuGoalRatio = 1.1;

/** How much of the video the viewer plays at 1x before seeking: enough for a few runs of segments. */
const watchSeconds = 24;
/** Where the viewer seeks, as shares of the duration; a random share is added per video. */
const seekShares = [0.25, 0.5, 0.9];
/** The playback after each seek, in which stalls count too. */
const afterSeekMs = 2_000;
/**
 * How long the viewer waits for playback to reach `watchSeconds`, or for a seek to play, before
 * recording it as not done: long enough that a slow farm shows as long stalls, not as a hang.
 */
const viewerPatienceMs = 240_000;

/** The warm-up's source, whatever the lengths: short, so that a run of long sources does not pay one more. */
const warmUpSeconds = 10;

type Mode = 'off' | 'on' | 'viewer';

/** What the viewer saw: milliseconds of the page's clock. */
interface Playback {
  /** From loading the player (at `ready`) to currentTime advancing; null: it never started. */
  startMs: number | null;
  /**
   * Each stall while playing: how long, the media time it happened at and when (epoch ms); `open`:
   * still stalled when the viewer moved on; `waitedFor`: the run that made the segment (see waitedFor).
   */
  stalls: { ms: number; at: number; since: number; open: boolean; waitedFor?: string | undefined }[];
  /** Each seek: its target (s), when it was made (epoch ms), the time to currentTime advancing past it (null: not within viewerPatienceMs), and the run it waited for. */
  seeks: { target: number; since: number; ms: number | null; waitedFor?: string | undefined }[];
  /** hls.js errors (type/details, fatal marked), in order. */
  errors: string[];
}

interface VideoRun {
  mode: Mode;
  readyMs: number;
  /** From the process call to the end of its workflow (just in time: the ladder complete). */
  completeMs: number;
  /** The nodes' CPU for the video. */
  cpuMs: number;
  /** The rest of the machine's busy CPU meanwhile (the other processes of the stack, the browser, anything else). */
  otherCpuMs: number;
  /** Just in time: from the process call to its first encode on a node (upload check, probe, plan, queue). */
  beforeMs?: number;
  /**
   * Just in time: the audio track's encode (the whole source's AAC, which every run after the first
   * copies its part of), its slot time; `audioAwaited` when the first run started only after it (a
   * workflow before the first run's audio head).
   */
  audioTrackMs?: number;
  audioAwaited?: boolean;
  /** Just in time: the first run's encode (the first segment of every H.264 rung) on its node, its slot time. */
  firstRunMs?: number;
  /** Just in time: the median encode of a 12 s background run on its node (sources of 18 s and more). */
  runMs?: number;
  playback?: Playback;
}

/** The node process's CPU so far, its reaped children's included, in ms. */
async function processCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces), from field 3 (state): utime is 14.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks * (1000 / clockTicksPerSecond);
}

/** sysconf(_SC_CLK_TCK): 100 on every Linux Kino runs on. */
const clockTicksPerSecond = 100;

/**
 * The machine's busy CPU time so far (every core, every process), in ms, from /proc/stat: beside the
 * nodes' own, what else ran during a video (the rest of the stack, the browser, anything else on
 * the machine), which slows the encodes down.
 */
async function machineBusyMs(): Promise<number> {
  const [, user, nice, system, , , irq, softirq, steal] = (await readFile('/proc/stat', 'utf8'))
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * (1000 / clockTicksPerSecond);
}

const farmCpuMs = async (nodes: FarmNodeProcess[]) =>
  (await Promise.all(nodes.map((n) => processCpuMs(n.process.child.pid!)))).reduce((a, b) => a + b, 0);

/**
 * The encode jobs of a video on every node, from their logs: each job's slot time and, for a chunk
 * (a just-in-time run, or a 30 s chunk when off), its window (the node's `encode starting` line).
 */
async function videoJobs(nodes: FarmNodeProcess[], videoId: string): Promise<VideoJob[]> {
  const jobs: VideoJob[] = [];
  for (const node of nodes) {
    const chunkOf = new Map<string, VideoJob['chunk']>();
    const onDemand = new Set<string>();
    const raisedAt = new Map<string, number>();
    for (const line of (await readFile(node.logFile, 'utf8')).split('\n')) {
      if (!line.startsWith('{') || !line.includes(videoId)) continue;
      const entry = JSON.parse(line) as {
        msg?: string;
        jobId?: string;
        chunk?: VideoJob['chunk'];
        onDemand?: boolean;
        time?: number;
      };
      if (entry.msg === 'encode starting' && entry.jobId && entry.chunk) chunkOf.set(entry.jobId, entry.chunk);
      if (entry.msg === 'encode started' && entry.jobId && entry.onDemand) onDemand.add(entry.jobId);
      if (entry.msg?.startsWith('encode raised') && entry.jobId && entry.time !== undefined)
        raisedAt.set(entry.jobId, entry.time);
    }
    for (const job of await nodeJobs(node)) {
      if (!job.jobId.startsWith(videoId) || job.endedAt === undefined) continue;
      const chunk = chunkOf.get(job.jobId);
      const raised = raisedAt.get(job.jobId);
      jobs.push({
        ...(chunk ? { chunk } : {}),
        ...(job.kind ? { kind: job.kind } : {}),
        startedAt: job.startedAt,
        endedAt: job.endedAt,
        onDemand: onDemand.has(job.jobId),
        ...(raised !== undefined ? { raisedAt: raised } : {}),
      });
    }
  }
  return jobs;
}

/** One encode of a video on a node: its window when a chunk (a run), its slot time, and whether it was urgent (nice 0). */
interface VideoJob {
  chunk?: { index: number; startSeconds: number; durationSeconds: number };
  /** `chunk`, `audioTrack` (the track the runs copy from, then audio.m4a) or `whole`. */
  kind?: string;
  startedAt: number;
  endedAt: number;
  onDemand: boolean;
  /** When the node reniced it to 0 (a viewer asked for one of its segments while it ran in the background). */
  raisedAt?: number;
}

/**
 * What a viewer waiting at media time `at` (a stall, or a seek's target) from `since` (epoch ms)
 * waited for: the run whose window holds it, when its encode started against the wait, whether it
 * ran urgent (nice 0: the first run, or one a request raised before it started) or in the
 * background (nice 10), and its encode's slot time.
 */
function waitedFor(jobs: VideoJob[], at: number, since: number): string | undefined {
  const run = jobs.find(
    (j) => j.chunk && j.chunk.startSeconds <= at && at < j.chunk.startSeconds + j.chunk.durationSeconds,
  );
  if (!run) return undefined;
  const { index, startSeconds, durationSeconds } = run.chunk!;
  const start = (run.startedAt - since) / 1000;
  const when = start >= 0 ? `${start.toFixed(1)} s after` : `${(-start).toFixed(1)} s before`;
  const raised =
    run.raisedAt !== undefined ? `, reniced to 0 ${((run.raisedAt - since) / 1000).toFixed(1)} s after` : '';
  return `run ${index} (${startSeconds}-${startSeconds + durationSeconds} s, ${run.onDemand ? 'urgent' : 'background'}) started ${when}${raised}, its encode ${sec(run.endedAt - run.startedAt)}`;
}

/** The first run's ffmpeg alone: its wall and CPU time, and the rest of the machine's CPU meanwhile. */
interface Alone {
  wallMs: number;
  cpuMs: number;
  otherCpuMs: number;
}

/**
 * The first run's encode alone on the machine, the farm idle: the nodes' own ladder command
 * (@kino/ffmpeg) for the first 6 s of every H.264 rung, ffmpeg choosing its threads, from and to
 * local disk (a node reads from and writes to storage). It encodes the source's 6 s of sound where
 * the node first encodes 7 s of it (its audio head) and copies from that: about the same CPU. Its wall
 * time is the least the first run takes here; its CPU time over the cores, the least it could take on them.
 */
async function firstSegmentAlone(sourcePath: string, seconds: number, preset: VideoQuality): Promise<Alone> {
  const info = await probeMedia(sourcePath);
  const ladder = planLadder(
    preset,
    { width: info.width, height: info.height, frameRate: info.frameRate, hasAudio: info.hasAudio },
    { ...defaultEncodingParameters, compressionRatio },
  );
  const dir = await mkdtemp(join(tmpdir(), 'kino-bench-jit-'));
  try {
    const outputs = ladder.map((r) => ({
      settings: resolveHlsSettings(
        {
          ...r,
          videoCodec: 'h264',
          minQuantizer: 0,
          dynamicRange: '',
          audioStream: 0,
          hardwareEncodingAllowed: false,
          audioEndSeconds: 0,
          pictureCopy: false,
          lowDelay: false,
        },
        info,
      ),
      dir: r.key,
    }));
    for (const o of outputs) await mkdir(join(dir, o.dir));
    const args = hlsLadderArgs({
      input: sourcePath,
      outputs,
      threads: 0,
      chunk: { startSeconds: 0, durationSeconds: 6, firstSegment: 0 },
      videoSeconds: seconds,
    });
    // The shell's `times` prints its children's user and sys time last.
    const script = 'ffmpeg -hide_banner -loglevel error -y "$@" >/dev/null || exit 1; times';
    const busyBefore = await machineBusyMs();
    const started = performance.now();
    const { stdout } = await promisify(execFile)('sh', ['-c', script, 'sh', ...args], { cwd: dir });
    const wallMs = performance.now() - started;
    const busyMs = (await machineBusyMs()) - busyBefore;
    const [user, sys] = stdout
      .trim()
      .split('\n')
      .at(-1)!
      .split(/\s+/)
      .map((t) => {
        const m = /(\d+)m([\d.]+)s/.exec(t)!;
        return (Number(m[1]) * 60 + Number(m[2])) * 1000;
      });
    return { wallMs, cpuMs: user! + sys!, otherCpuMs: busyMs - user! - sys! };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Polls the video's row until it is `ready` (every 50 ms: the viewer starts at once); its ready_at. */
async function waitForReadyRow(farm: Farm, videoId: string): Promise<number> {
  for (;;) {
    const video = await getVideo(farm.db, videoId);
    if (video?.status === 'ready') return video.ready_at!.getTime();
    if (video?.status === 'failed') throw new Error(`video ${videoId} failed: ${video.failure_reason}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// The viewer's page: hls.js with its defaults, muted (autoplay), at 1x. `start(src)` loads the
// video; `seek(t, patienceMs)` seeks and answers the time to playback past t. window.viewer holds
// what the page saw, in the page's clock (performance.now()).
const viewerPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Kino just-in-time viewer</title><script src="/hls.min.js"></script></head>
<body><video id="v" muted playsinline></video>
<script>
  const viewer = { startMs: null, stalls: [], errors: [] };
  window.viewer = viewer;
  const video = document.getElementById('v');
  // 'start' until currentTime first advances, 'seek' from a seek to playback past its target, else 'play'.
  let phase = 'idle';
  let stall = null;
  const closeStall = (open) => {
    if (stall) viewer.stalls.push({ ms: performance.now() - stall.since, at: stall.at, since: stall.epoch, open });
    stall = null;
  };
  video.addEventListener('waiting', () => {
    if (phase === 'play' && !stall) stall = { since: performance.now(), epoch: Date.now(), at: video.currentTime };
  });
  video.addEventListener('playing', () => closeStall(false));
  /** Resolves with the ms until currentTime passes 'from' (not seeking), or null after patienceMs. */
  const untilPast = (from, since, patienceMs) => new Promise((resolve) => {
    const timer = setInterval(() => {
      const waited = performance.now() - since;
      if (!video.seeking && video.currentTime > from + 0.01) { clearInterval(timer); resolve(waited); }
      else if (waited > patienceMs) { clearInterval(timer); resolve(null); }
    }, 10);
  });
  window.start = async (src, patienceMs) => {
    const since = performance.now();
    phase = 'start';
    const hls = new Hls();
    hls.on(Hls.Events.ERROR, (_event, data) => viewer.errors.push(data.type + '/' + data.details + (data.fatal ? ' (fatal)' : '')));
    hls.on(Hls.Events.MANIFEST_PARSED, () => video.play().catch((error) => viewer.errors.push('play(): ' + error.message)));
    hls.loadSource(src);
    hls.attachMedia(video);
    viewer.startMs = await untilPast(0, since, patienceMs);
    phase = 'play';
  };
  window.seek = async (target, patienceMs) => {
    // A stall cut short by the seek counts for as long as it lasted.
    closeStall(true);
    phase = 'seek';
    const since = performance.now();
    video.currentTime = target;
    if (video.paused) video.play().catch((error) => viewer.errors.push('play(): ' + error.message));
    const ms = await untilPast(target, since, patienceMs);
    phase = 'play';
    return ms;
  };
  window.finish = () => closeStall(true);
</script></body></html>`;

/** Plays the video as a viewer who starts at `ready`: the start and stalls, then the seeks. */
async function watch(tab: Page, src: string, durationSeconds: number): Promise<Playback> {
  await tab.evaluate(
    ([url, patience]) =>
      (window as unknown as { start: (src: string, ms: number) => Promise<void> }).start(url, patience),
    [src, viewerPatienceMs] as const,
  );
  const played = Math.min(watchSeconds, durationSeconds * 0.8);
  await tab
    .waitForFunction(
      (until) => {
        const v = document.querySelector('video')!;
        return v.currentTime >= until || v.ended;
      },
      played,
      { timeout: viewerPatienceMs, polling: 100 },
    )
    .catch(() => log(`    the viewer did not reach ${played} s within ${viewerPatienceMs / 1000} s`));
  const seeks: Playback['seeks'] = [];
  // The random point is anywhere but the first and last 5 %.
  for (const share of [...seekShares, 0.05 + Math.random() * 0.9]) {
    const target = Math.round(share * durationSeconds * 10) / 10;
    const since = Date.now();
    const ms = await tab.evaluate(
      ([t, patience]) =>
        (window as unknown as { seek: (t: number, ms: number) => Promise<number | null> }).seek(t, patience),
      [target, viewerPatienceMs] as const,
    );
    seeks.push({ target, since, ms });
    await tab.waitForTimeout(afterSeekMs);
  }
  await tab.evaluate(() => (window as unknown as { finish: () => void }).finish());
  const seen = await tab.evaluate(() => (window as unknown as { viewer: Omit<Playback, 'seeks'> }).viewer);
  return { ...seen, seeks };
}

interface Bench {
  farm: Farm;
  nodes: FarmNodeProcess[];
  browser: Browser;
  pageHost: PageHost;
}

/** One video of `source` in `mode`, from the process call to the end of its workflow. */
async function makeVideo(
  bench: Bench,
  source: { bytes: Blob; seconds: number },
  preset: VideoQuality,
  mode: Mode,
): Promise<VideoRun> {
  const { farm, nodes } = bench;
  // The environment's setting, through the SDK: read once per video when its processing starts, it
  // overrides the farm's JUST_IN_TIME, so the modes alternate without restarting the orchestrator.
  await farm.kino.environments.update(farm.orgId, farm.envId, { justInTime: mode !== 'off' });
  // The page is loaded before the process call: the viewer starts the moment the video is ready.
  const tab = mode === 'viewer' ? await bench.browser.newPage() : undefined;
  try {
    if (tab) await tab.goto(`${bench.pageHost.origin}/viewer`);
    const cpuBefore = await farmCpuMs(nodes);
    const busyBefore = await machineBusyMs();
    const { videoId, calledAt } = await submitBenchVideo(farm, source.bytes, compressionRatio, preset);
    const readyAt = await waitForReadyRow(farm, videoId);
    const src = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
    const playback = tab ? await watch(tab, src, source.seconds) : undefined;
    await tab?.close();
    const result = (await farm.temporal.workflow
      .getHandle(workflowIds.processVideo(videoId))
      .result()) as ProcessVideoResult;
    const completeAt = Date.now();
    if (result.status !== 'ready')
      throw new Error(`video ${videoId} ended ${result.status}: ${JSON.stringify(result)}`);
    const video = (await getVideo(farm.db, videoId))!;
    if (video.segments_pending) throw new Error(`video ${videoId}: its workflow ended with segments still pending`);
    const cpuMs = (await farmCpuMs(nodes)) - cpuBefore;
    const otherCpuMs = (await machineBusyMs()) - busyBefore - cpuMs;
    // Just in time, run 0 is the first segment alone and the others 12 s (the last may be longer).
    const jobs = mode === 'off' ? [] : await videoJobs(nodes, videoId);
    // A stall begins a frame or so before the end of the buffered segment: the player waits for the next one.
    for (const stall of playback?.stalls ?? []) stall.waitedFor = waitedFor(jobs, stall.at + 0.25, stall.since);
    for (const seek of playback?.seeks ?? []) seek.waitedFor = waitedFor(jobs, seek.target, seek.since);
    const first = jobs.find((j) => j.chunk?.index === 0);
    // The video's first audio job is the track; audio.m4a comes with the complete ladder.
    const audioTrack = jobs.filter((j) => j.kind === 'audioTrack').sort((a, b) => a.startedAt - b.startedAt)[0];
    const background = jobs.filter((j) => j.chunk && j.chunk.index > 0 && j.chunk.durationSeconds === 12);
    return {
      mode,
      readyMs: readyAt - calledAt,
      completeMs: completeAt - calledAt,
      cpuMs,
      otherCpuMs,
      ...(first
        ? {
            beforeMs: Math.min(first.startedAt, audioTrack?.startedAt ?? Infinity) - calledAt,
            firstRunMs: first.endedAt - first.startedAt,
          }
        : {}),
      ...(first && audioTrack
        ? {
            audioTrackMs: audioTrack.endedAt - audioTrack.startedAt,
            audioAwaited: first.startedAt >= audioTrack.endedAt,
          }
        : {}),
      ...(background.length > 0 ? { runMs: median(background.map((j) => j.endedAt - j.startedAt)) } : {}),
      ...(playback ? { playback } : {}),
    };
  } finally {
    if (tab && !tab.isClosed()) await tab.close();
  }
}

/** The audio track's time on the path to `ready`: none when it ran beside the first run. */
const awaitedAudioMs = (r: VideoRun) => (r.audioAwaited ? (r.audioTrackMs ?? 0) : 0);
const sec = (ms: number | null | undefined, digits = 1) =>
  ms === null || ms === undefined || Number.isNaN(ms) ? '-' : `${(ms / 1000).toFixed(digits)} s`;
const longestStall = (p: Playback) => Math.max(0, ...p.stalls.map((st) => st.ms));
const totalStall = (p: Playback) => p.stalls.reduce((sum, st) => sum + st.ms, 0);
/** The start counts as a stall for the goal: the viewer sees a still picture either way. */
const worstWait = (p: Playback) => Math.max(p.startMs ?? Infinity, longestStall(p));

function describe(r: VideoRun): string {
  let line = `ready ${sec(r.readyMs)}, complete ${sec(r.completeMs)}, CPU ${sec(r.cpuMs)} (the rest of the machine ${sec(r.otherCpuMs)})`;
  if (r.audioTrackMs !== undefined)
    line += `, audio track ${sec(r.audioTrackMs)} (${r.audioAwaited ? 'before' : 'beside'} the first run)`;
  if (r.firstRunMs !== undefined) line += `, first run ${sec(r.firstRunMs)}`;
  if (r.runMs !== undefined) line += `, a background run ${sec(r.runMs)}`;
  const p = r.playback;
  if (p) {
    line += `; start ${sec(p.startMs, 2)}, ${p.stalls.length} stalls (longest ${sec(longestStall(p), 2)}, total ${sec(totalStall(p), 2)}${p.stalls.some((st) => st.open) ? ', some cut short' : ''})`;
    line += `, seeks ${p.seeks.map((sk) => `${sk.target} s: ${sec(sk.ms, 2)}`).join(', ')}`;
    if (p.stalls.length > 0)
      line += `; stalls at ${p.stalls.map((st) => `${st.at.toFixed(1)} s (${sec(st.ms, 2)})`).join(', ')}`;
    // What each wait of a second or more waited for (a run of the video), from the nodes' logs.
    for (const st of p.stalls.filter((x) => x.ms >= 1000 && x.waitedFor))
      line += `\n      stall at ${st.at.toFixed(1)} s waited for ${st.waitedFor}`;
    for (const sk of p.seeks.filter((x) => (x.ms === null || x.ms >= 1000) && x.waitedFor))
      line += `\n      seek to ${sk.target} s waited for ${sk.waitedFor}`;
    if (p.errors.length > 0) line += `; hls.js: ${p.errors.join(', ')}`;
  }
  return line;
}

/** Fixed-width table rows: every column padded to its widest cell. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

interface Case {
  seconds: number;
  preset: VideoQuality;
  /** Run i's three videos. */
  runs: Record<Mode, VideoRun>[];
}

async function main(): Promise<void> {
  log(
    `lengths ${lengths.join(', ')} s, presets ${presets.join(', ')}, ${compressionRatio} (the spec's default compressionRatio), ${runs} runs, ` +
      `${cpus().length} cores, load ${(await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')}`,
  );
  // Streamed from their files: a 20-minute source is over the 2 GiB a Buffer holds.
  const sources = new Map<number, Blob>();
  for (const seconds of new Set([warmUpSeconds, ...lengths]))
    sources.set(seconds, await openAsBlob(await benchSource(seconds)));

  const [farm, browser, pageHost] = await Promise.all([
    startFarm({ playback: true, orchestratorEnv: { JUST_IN_TIME: 'true' } }),
    launchChromium(),
    startPageHost({ '/viewer': viewerPage }),
  ]);
  const cases: Case[] = [];
  try {
    // The dev stack's farm on 2 cores: two nodes, one slot each, ffmpeg choosing its threads.
    const nodes = [await farm.startNode('a', { slots: 1 }), await farm.startNode('b', { slots: 1 })];
    const bench: Bench = { farm, nodes, browser, pageHost };
    // A warm-up (the workers' first workflow and activities, the browser's first page), not counted.
    const warmUp = { bytes: sources.get(warmUpSeconds)!, seconds: warmUpSeconds };
    log(
      `warm-up, ${warmUpSeconds} s ${presets[0]} with a viewer: ${describe(await makeVideo(bench, warmUp, presets[0]!, 'viewer'))}`,
    );

    for (const seconds of lengths) {
      for (const preset of presets) {
        const source = { bytes: sources.get(seconds)!, seconds };
        const c: Case = { seconds, preset, runs: [] };
        cases.push(c);
        for (let i = 0; i < runs; i += 1) {
          const order: Mode[] = i % 2 === 0 ? ['off', 'on', 'viewer'] : ['viewer', 'on', 'off'];
          const run = {} as Record<Mode, VideoRun>;
          for (const mode of order) {
            run[mode] = await makeVideo(bench, source, preset, mode);
            log(`  ${seconds} s ${preset}, run ${i + 1}, ${mode.padEnd(6)} ${describe(run[mode])}`);
          }
          c.runs.push(run);
        }
      }
    }
  } finally {
    await browser.close();
    await pageHost.close();
    await farm.stop();
  }
  // With the farm stopped: nothing of the bench's runs on the machine but this ffmpeg.
  const alone = new Map<VideoQuality, Alone>();
  for (const preset of presets) {
    const samples = [];
    for (let i = 0; i < 3; i += 1)
      samples.push(await firstSegmentAlone(await benchSource(warmUpSeconds), warmUpSeconds, preset));
    alone.set(preset, {
      wallMs: median(samples.map((x) => x.wallMs)),
      cpuMs: median(samples.map((x) => x.cpuMs)),
      otherCpuMs: median(samples.map((x) => x.otherCpuMs)),
    });
    log(
      `the first 6 s of the ${preset} ladder alone: ${samples.map((x) => `${sec(x.wallMs, 2)} (CPU ${sec(x.cpuMs, 2)}, the rest of the machine ${sec(x.otherCpuMs, 2)})`).join(', ')}`,
    );
  }
  process.stdout.write(`${report(cases, alone)}\n`);
}

function report(cases: Case[], alone: Map<VideoQuality, Alone>): string {
  const out: string[] = [];
  const name = (c: Case) => `${c.seconds} s ${c.preset}`;
  const m = (values: number[]) => median(values);
  const jit = (c: Case) => c.runs.flatMap((r) => [r.on, r.viewer]);
  out.push(
    `${runs} runs per source and preset, each an off, an on and a viewer video in alternating order; 1080p30 sources, compressionRatio ${compressionRatio} (the default); 2 nodes x 1 slot`,
  );

  // Figures of the just-in-time videos that have a first run of their own (a source of one run has none).
  const ofFirstRuns = (c: Case, f: (r: VideoRun) => number) =>
    jit(c).flatMap((r) => (r.firstRunMs !== undefined ? [f(r)] : []));
  out.push(
    '',
    "1. From the process call to `ready` (medians; on: the on and viewer videos; on/off: median of the ratios of each on video to its run's off video)",
  );
  out.push(
    "   and where the just-in-time time goes: before its first encode starts on a node (upload check, probe, plan, queue), the audio track's encode when the first run waited for it (else it runs beside), the first run's, the rest (dispatch between them, playlists, thumbnail, the row)",
  );
  out.push(
    table(
      ['source', 'on', 'on max', 'off', 'on/off', 'before encodes', 'audio track first', 'first run', 'the rest'],
      cases.map((c) => [
        name(c),
        sec(m(jit(c).map((r) => r.readyMs)), 2),
        sec(Math.max(...jit(c).map((r) => r.readyMs)), 2),
        sec(m(c.runs.map((r) => r.off.readyMs)), 2),
        m(c.runs.flatMap((r) => [r.on.readyMs / r.off.readyMs, r.viewer.readyMs / r.off.readyMs])).toFixed(3),
        // '-': a source of one run, encoded whole either way.
        sec(m(ofFirstRuns(c, (r) => r.beforeMs!)), 2),
        sec(m(ofFirstRuns(c, awaitedAudioMs)), 2),
        sec(m(ofFirstRuns(c, (r) => r.firstRunMs!)), 2),
        sec(m(ofFirstRuns(c, (r) => r.readyMs - r.beforeMs! - awaitedAudioMs(r) - r.firstRunMs!)), 2),
      ]),
    ),
  );

  out.push(
    '',
    `2. A viewer from \`ready\` at 1x in hls.js (Chromium): start to currentTime advancing, stalls (waiting to playing), seeks to playing past the target (medians over runs; max: the worst run)`,
  );
  const playbacks = (c: Case) => c.runs.map((r) => r.viewer.playback!);
  const seekAt = (c: Case, k: number) => playbacks(c).map((p) => p.seeks[k]!.ms ?? Infinity);
  out.push(
    table(
      [
        'source',
        'start',
        'stalls',
        'longest',
        'longest max',
        'total',
        'seek 25 %',
        'seek 50 %',
        'seek 90 %',
        'seek random',
        'seek max',
        'hls.js errors',
      ],
      cases.map((c) => [
        name(c),
        sec(m(playbacks(c).map((p) => p.startMs ?? Infinity)), 2),
        String(m(playbacks(c).map((p) => p.stalls.length))),
        sec(m(playbacks(c).map(longestStall)), 2),
        sec(Math.max(...playbacks(c).map(longestStall)), 2),
        sec(m(playbacks(c).map(totalStall)), 2),
        ...[0, 1, 2, 3].map((k) => sec(m(seekAt(c, k)), 2)),
        sec(Math.max(...[0, 1, 2, 3].flatMap((k) => seekAt(c, k))), 2),
        String(playbacks(c).reduce((n, p) => n + p.errors.length, 0)),
      ]),
    ),
  );

  // What the viewer's waits of a second or more waited for: the run that made the segment.
  const longWaits = cases.flatMap((c) =>
    playbacks(c).flatMap((p) => [
      ...p.stalls
        .filter((st) => st.ms >= 1000)
        .map(
          (st) => `  ${name(c)}: stall at ${st.at.toFixed(1)} s, ${sec(st.ms, 2)}: ${st.waitedFor ?? 'no run found'}`,
        ),
      ...p.seeks
        .filter((sk) => sk.ms === null || sk.ms >= 1000)
        .map((sk) => `  ${name(c)}: seek to ${sk.target} s, ${sec(sk.ms, 2)}: ${sk.waitedFor ?? 'no run found'}`),
    ]),
  );
  if (longWaits.length > 0)
    out.push(
      "   the waits of 1 s or more, and the run each waited for (urgent: nice 0; background: nice 10; started: against the wait's start):",
      ...longWaits,
    );

  out.push(
    '',
    '3. Encode CPU of the two nodes per video, until the ladder is complete (medians; ratios: medians of per-run ratios)',
  );
  out.push(
    table(
      [
        'source',
        'on',
        'viewer',
        'viewer/on',
        'off',
        'off/on',
        'on: complete',
        'off: ready',
        'video s per s (on, off)',
        'rest of the machine, CPU s per s (on, viewer, off)',
      ],
      cases.map((c) => [
        name(c),
        sec(m(c.runs.map((r) => r.on.cpuMs))),
        sec(m(c.runs.map((r) => r.viewer.cpuMs))),
        m(c.runs.map((r) => r.viewer.cpuMs / r.on.cpuMs)).toFixed(3),
        sec(m(c.runs.map((r) => r.off.cpuMs))),
        m(c.runs.map((r) => r.off.cpuMs / r.on.cpuMs)).toFixed(3),
        sec(m(c.runs.map((r) => r.on.completeMs))),
        sec(m(c.runs.map((r) => r.off.readyMs))),
        `${(c.seconds / (m(c.runs.map((r) => r.on.completeMs)) / 1000)).toFixed(2)}, ${(c.seconds / (m(c.runs.map((r) => r.off.readyMs)) / 1000)).toFixed(2)}`,
        // How busy the rest of the machine kept the cores while the nodes encoded (2.00: both cores).
        (['on', 'viewer', 'off'] as const)
          .map((mode) => m(c.runs.map((r) => r[mode].otherCpuMs / r[mode].completeMs)).toFixed(2))
          .join(', '),
      ]),
    ),
  );

  const cpuPerVideoSecond = (c: Case) => m(c.runs.map((r) => r.off.cpuMs)) / 1000 / c.seconds;
  out.push(
    '',
    `4. What bounds them: the just-in-time encodes on their node (slot time, medians over the on and viewer videos); the first run's ffmpeg alone on this idle machine (${cpus().length} cores, median of 3); the ladder's CPU per second of video (off videos: probe, thumbnail, storyboard included)`,
  );
  out.push(
    table(
      [
        'source',
        'first run (6 s, every H.264 rung)',
        'x real time',
        '12 s background run',
        'x real time',
        'first 6 s alone',
        'its CPU',
        'rest of the machine',
        'CPU s per video s',
      ],
      cases.map((c) => {
        const first = m(ofFirstRuns(c, (r) => r.firstRunMs!));
        const run = m(jit(c).flatMap((r) => (r.runMs !== undefined ? [r.runMs] : [])));
        const speed = (seconds: number, ms: number) => (Number.isNaN(ms) ? '-' : ((seconds * 1000) / ms).toFixed(2));
        const { wallMs, cpuMs, otherCpuMs } = alone.get(c.preset)!;
        return [
          name(c),
          sec(first, 2),
          speed(6, first),
          sec(run, 2),
          speed(12, run),
          sec(wallMs, 2),
          sec(cpuMs, 2),
          sec(otherCpuMs, 2),
          cpuPerVideoSecond(c).toFixed(2),
        ];
      }),
    ),
  );

  // The goals, each over every case.
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const readies = cases.map((c) => [name(c), m(jit(c).map((r) => r.readyMs))] as const);
  out.push(
    '',
    `goal 1, ready within ${sec(readyGoalMs)} (median per source): ${met(readies.every(([, ms]) => ms <= readyGoalMs))}: ${readies.map(([n, ms]) => `${n} ${sec(ms, 2)}`).join(', ')}`,
  );
  const waits = cases.map((c) => [name(c), Math.max(...playbacks(c).map(worstWait))] as const);
  out.push(
    `goal 2a, no stall over ${sec(stallGoalMs)} (the start included; worst run): ${met(waits.every(([, ms]) => ms <= stallGoalMs))}: ${waits.map(([n, ms]) => `${n} ${sec(ms, 2)}`).join(', ')}`,
  );
  const seekMaxes = cases.map((c) => [name(c), Math.max(...[0, 1, 2, 3].flatMap((k) => seekAt(c, k)))] as const);
  out.push(
    `goal 2b, every seek playing within ${sec(seekGoalMs)} (worst seek): ${met(seekMaxes.every(([, ms]) => ms <= seekGoalMs))}: ${seekMaxes.map(([n, ms]) => `${n} ${sec(ms, 2)}`).join(', ')}`,
  );
  const cpuRatios = cases.map((c) => [name(c), m(c.runs.map((r) => r.viewer.cpuMs / r.on.cpuMs))] as const);
  out.push(
    `goal 3, CPU with a viewer at most ${cpuGoalRatio}x without (median ratio): ${met(cpuRatios.every(([, x]) => x <= cpuGoalRatio))}: ${cpuRatios.map(([n, x]) => `${n} ${x.toFixed(3)}`).join(', ')}`,
  );
  return out.join('\n');
}

await main();
