// bench/encode: from the process call to `ready` for a 60 s 1080p30 clip with audio on the `high`
// preset (480p, 720p, 1080p), against ONE raw ffmpeg command making the same ladder (same sizes,
// bitrates, x264 preset, GOP, forced keyframes, 6 s fMP4 HLS segments) on the same machine, in the
// same run, as a paired comparison: one warm-up pair not counted, then pairs in alternating order
// (raw then Kino, Kino then raw), the median of the paired ratios, and a check, not an assumption,
// that both made the same ladder: same renditions and sizes, video bitrates within 5 %, the same
// audio channel count, the same segment count and durations (ffprobe of both outputs). Prints every
// pair, the medians, and where Kino's extra time goes.
//
//   node --import tsx bench/encode/run.ts [--runs 3] [--seconds 60] [--nodes 1] [--slots 2] [--grouping auto|ladder|rendition]
//
// One node by default: one machine is one node. `--grouping` sets the orchestrator's ENCODE_GROUPING
// (ladder, the default: one encode makes every rendition from one decode; rendition: one per rendition).
//
// Kino runs for real: PostgreSQL, Temporal, SeaweedFS, `kino api`, `kino orchestrator` and encode
// nodes as separate processes (test/farm/farm.ts). The raw command reads the source from local disk
// and writes to local disk; Kino reads it from S3 and writes every file to S3: that is part of what
// is measured.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { planLadder, type RenditionPlan } from '@kino/orchestrator';
import { keyframeArgs } from '@kino/ffmpeg';
import { defaultEncodingParameters, workflowIds } from '@kino/proto/contract';
import { startFarm, type Farm } from '../../test/farm/farm.ts';
import { benchSource, log, median, s, submitBenchVideo, waitForReady } from './common.ts';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '60' },
    nodes: { type: 'string', default: '1' },
    slots: { type: 'string', default: '2' },
    grouping: { type: 'string', default: process.env.ENCODE_GROUPING ?? 'auto' },
  },
});
const runs = Number(options.runs);
if (!['auto', 'ladder', 'rendition'].includes(options.grouping))
  throw new Error(`--grouping is auto, ladder or rendition, not ${options.grouping}`);
process.env.ENCODE_GROUPING = options.grouping; // the orchestrator process inherits it
const seconds = Number(options.seconds);
const compressionRatio = defaultEncodingParameters.compressionRatio; // the spec's default

/** The ladder Kino plans for this source, made by one ffmpeg: split, scale, encode, one HLS muxer. */
function rawLadderArgs(input: string, ladder: RenditionPlan[]): string[] {
  const split = `[0:v]split=${ladder.length}${ladder.map((_, i) => `[s${i}]`).join('')}`;
  const scales = ladder.map((r, i) => `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,setsar=1[v${i}]`);
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-i',
    input,
    '-filter_complex',
    [split, ...scales].join(';'),
  ];
  ladder.forEach((_, i) => args.push('-map', `[v${i}]`, '-map', '0:a:0'));
  args.push(
    '-c:v',
    'libx264',
    '-preset',
    ladder[0]!.x264Preset,
    '-pix_fmt',
    'yuv420p',
    // The nodes' keyframes (every 2 s, none in a short tail), for the same segments.
    ...keyframeArgs(ladder[0]!, seconds),
  );
  ladder.forEach((r, i) => {
    const maxrate = Math.round(r.videoBitrateKbps * 1.5);
    args.push(
      `-b:v:${i}`,
      `${r.videoBitrateKbps}k`,
      `-maxrate:v:${i}`,
      `${maxrate}k`,
      `-bufsize:v:${i}`,
      `${maxrate * 2}k`,
    );
  });
  // No `-ac`: like Kino's nodes, the source's channel layout is kept (a mono source stays mono).
  args.push(
    '-c:a',
    'aac',
    '-b:a',
    `${ladder[0]!.audioBitrateKbps}k`,
    '-ar',
    '48000',
    '-map_metadata',
    '-1',
    '-f',
    'hls',
    '-hls_time',
    String(ladder[0]!.segmentSeconds),
    '-hls_playlist_type',
    'vod',
    '-hls_segment_type',
    'fmp4',
    '-hls_fmp4_init_filename',
    'init.mp4',
    '-hls_segment_filename',
    '%v/seg-%05d.m4s',
    '-hls_flags',
    'independent_segments',
    '-master_pl_name',
    'master.m3u8',
    '-var_stream_map',
    ladder.map((r, i) => `v:${i},a:${i},name:${r.key}`).join(' '),
    '%v/playlist.m3u8',
  );
  return args;
}

function runFfmpeg(args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`ffmpeg exited ${code}: ${stderr}`)),
    );
  });
}

const execFileAsync = promisify(execFile);

/** What one rendition of an output is, as measured from its files. */
interface RenditionOutput {
  width: number;
  height: number;
  audioChannels: number;
  /** EXTINF durations of the media playlist, in order. */
  segmentSeconds: number[];
  /** Media segment bytes × 8 / playlist duration (video and audio together, as both sides mux them). */
  bitrateKbps: number;
}
type LadderOutput = Record<string, RenditionOutput>;

/** Reads a rendition from its playlist, its init segment and its media segments' sizes, with ffprobe for the streams. */
async function describeRendition(playlist: string, initPath: string, segmentBytes: number): Promise<RenditionOutput> {
  const { stdout } = await execFileAsync('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_type,width,height,channels',
    '-of',
    'json',
    initPath,
  ]);
  const streams = (
    JSON.parse(stdout) as { streams: { codec_type: string; width?: number; height?: number; channels?: number }[] }
  ).streams;
  const video = streams.find((st) => st.codec_type === 'video');
  const audio = streams.find((st) => st.codec_type === 'audio');
  const segmentSeconds = [...playlist.matchAll(/#EXTINF:([\d.]+)/g)].map((m) => Number(m[1]));
  const duration = segmentSeconds.reduce((a, b) => a + b, 0);
  return {
    width: video?.width ?? 0,
    height: video?.height ?? 0,
    audioChannels: audio?.channels ?? 0,
    segmentSeconds,
    bitrateKbps: duration > 0 ? (segmentBytes * 8) / duration / 1000 : 0,
  };
}

/** The raw command's output, on local disk. */
async function describeRawOutput(dir: string, keys: string[]): Promise<LadderOutput> {
  const output: LadderOutput = {};
  for (const key of keys) {
    const files = await readdir(join(dir, key));
    const names = files.filter((n) => n.endsWith('.m4s'));
    const bytes = (await Promise.all(names.map((n) => stat(join(dir, key, n))))).reduce((sum, st) => sum + st.size, 0);
    // With several variant streams ffmpeg numbers the init segment: init_<stream>.mp4.
    const init = files.find((n) => /^init.*\.mp4$/.test(n));
    if (!init) throw new Error(`the raw command wrote no init segment for ${key}`);
    output[key] = await describeRendition(
      await readFile(join(dir, key, 'playlist.m3u8'), 'utf8'),
      join(dir, key, init),
      bytes,
    );
  }
  return output;
}

/** Kino's output, in the bucket (the init segment is copied to `scratch` for ffprobe). */
async function describeKinoOutput(farm: Farm, videoId: string, scratch: string): Promise<LadderOutput> {
  const output: LadderOutput = {};
  const keys = await farm.storage.list(`videos/${videoId}/hls/`);
  for (const key of new Set(keys.map((k) => /hls\/(\d+p)\//.exec(k)?.[1]).filter((k): k is string => Boolean(k)))) {
    const prefix = `videos/${videoId}/hls/${key}/`;
    const sizes = await Promise.all(
      keys.filter((k) => k.startsWith(`${prefix}seg-`)).map(async (k) => (await farm.storage.head(k))!.size),
    );
    const initPath = join(scratch, `kino-${key}-init.mp4`);
    await writeFile(initPath, (await farm.storage.get(`${prefix}init.mp4`))!);
    const playlist = (await farm.storage.get(`${prefix}playlist.m3u8`))!.toString('utf8');
    output[key] = await describeRendition(
      playlist,
      initPath,
      sizes.reduce((a, b) => a + b, 0),
    );
  }
  return output;
}

/** What differs between the two ladders; empty when they are the same ladder. */
function compareLadders(raw: LadderOutput, kino: LadderOutput): string[] {
  const problems: string[] = [];
  const rawKeys = Object.keys(raw).sort();
  const kinoKeys = Object.keys(kino).sort();
  if (rawKeys.join() !== kinoKeys.join())
    return [`renditions differ: raw ${rawKeys.join(', ')}, Kino ${kinoKeys.join(', ')}`];
  for (const key of rawKeys) {
    const r = raw[key]!;
    const k = kino[key]!;
    if (r.width !== k.width || r.height !== k.height)
      problems.push(`${key}: size raw ${r.width}x${r.height}, Kino ${k.width}x${k.height}`);
    if (r.audioChannels !== k.audioChannels)
      problems.push(`${key}: audio channels raw ${r.audioChannels}, Kino ${k.audioChannels}`);
    if (Math.abs(k.bitrateKbps - r.bitrateKbps) > 0.05 * r.bitrateKbps) {
      problems.push(
        `${key}: bitrate raw ${r.bitrateKbps.toFixed(0)} kbps, Kino ${k.bitrateKbps.toFixed(0)} kbps (more than 5 % apart)`,
      );
    }
    if (r.segmentSeconds.length !== k.segmentSeconds.length) {
      problems.push(`${key}: segments raw ${r.segmentSeconds.length}, Kino ${k.segmentSeconds.length}`);
    } else if (r.segmentSeconds.some((d, i) => Math.abs(d - k.segmentSeconds[i]!) > 0.05)) {
      problems.push(
        `${key}: segment durations raw [${r.segmentSeconds.join(', ')}], Kino [${k.segmentSeconds.join(', ')}]`,
      );
    }
  }
  return problems;
}

const summarize = (output: LadderOutput) =>
  Object.entries(output)
    .map(
      ([key, r]) =>
        `${key} ${r.width}x${r.height} ${r.bitrateKbps.toFixed(0)}k ${r.audioChannels}ch ${r.segmentSeconds.length}seg`,
    )
    .join(', ');

interface KinoRun {
  totalMs: number;
  phases: Record<string, number>;
  videoId: string;
}

type HistoryEvent = NonNullable<
  Awaited<ReturnType<ReturnType<Farm['temporal']['workflow']['getHandle']>['fetchHistory']>>['events']
>[number];

function eventMs(event: HistoryEvent): number {
  const time = event.eventTime!;
  return Number(time.seconds) * 1000 + Math.round((time.nanos ?? 0) / 1e6);
}

/** Kino's time split along the critical path: the rendition that finished last. */
async function runKino(farm: Farm, source: Buffer): Promise<KinoRun> {
  const { videoId: videoID, calledAt } = await submitBenchVideo(farm, source, compressionRatio);
  const handle = farm.temporal.workflow.getHandle(workflowIds.processVideo(videoID));
  const { result, readyAt } = await waitForReady(farm, videoID);

  const history = (await handle.fetchHistory()).events ?? [];
  const types = new Map<number, { type: string; scheduledAt: number; activityId: string }>();
  const started = new Map<number, number>();
  const completed = new Map<number, number>();
  let workflowStartedAt = 0;
  for (const event of history) {
    if (event.workflowExecutionStartedEventAttributes) workflowStartedAt = eventMs(event);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled)
      types.set(Number(event.eventId), {
        type: scheduled.activityType?.name ?? '',
        scheduledAt: eventMs(event),
        activityId: scheduled.activityId ?? '',
      });
    if (event.activityTaskStartedEventAttributes)
      started.set(Number(event.activityTaskStartedEventAttributes.scheduledEventId), eventMs(event));
    if (event.activityTaskCompletedEventAttributes)
      completed.set(Number(event.activityTaskCompletedEventAttributes.scheduledEventId), eventMs(event));
  }
  const activities = [...types.entries()].map(([id, info]) => ({
    ...info,
    startedAt: started.get(id) ?? 0,
    completedAt: completed.get(id) ?? 0,
  }));
  const probeDone = Math.max(...activities.filter((a) => a.type === 'probeSource').map((a) => a.completedAt));
  const encodes = activities
    .filter((a) => a.type === 'encodeRendition' || a.type === 'encodeRenditions')
    .sort((a, b) => a.completedAt - b.completedAt);
  const last = encodes.at(-1)!;
  // The last-finishing rendition's own account of its attempt (see EncodeTimings).
  const lastKey = result.renditions
    .map((r) => r.outcome)
    .sort((a, b) => a.timings.encodeMs + a.timings.finishMs - (b.timings.encodeMs + b.timings.finishMs))
    .at(-1)!;
  const { prepareMs, startupMs, encodeMs, finishMs } = lastKey.timings;
  const activityRun = last.completedAt - last.startedAt;

  return {
    totalMs: readyAt - calledAt,
    videoId: videoID,
    phases: {
      'API call + workflow start': workflowStartedAt - calledAt,
      'load video + probe (on a node)': probeDone - workflowStartedAt,
      'queueing (capacity check, dispatch)': last.startedAt - probeDone,
      'presign + take slot': prepareMs,
      'node start (its probe, ffmpeg start, first bytes)': startupMs,
      'ffmpeg encode (segments upload meanwhile)': encodeMs,
      'upload tail (last segment, init, playlist)': finishMs,
      'activity bookkeeping (heartbeats, completion)': Math.max(
        0,
        activityRun - prepareMs - startupMs - encodeMs - finishMs,
      ),
      'master playlist + thumbnail + mark ready': readyAt - last.completedAt,
    },
  };
}

interface Pair {
  order: 'raw-first' | 'kino-first';
  rawMs: number;
  kino: KinoRun;
  /** The ladder both made, summarized. */
  ladder: string;
}

/** One raw run and one Kino run in the given order; throws if the two did not make the same ladder. */
async function runPair(
  farm: Farm,
  source: Buffer,
  sourcePath: string,
  ladder: RenditionPlan[],
  order: Pair['order'],
): Promise<Pair> {
  const out = await mkdtemp(join(tmpdir(), 'kino-bench-raw-'));
  try {
    const raw = () => runFfmpeg(rawLadderArgs(sourcePath, ladder), out);
    let rawMs: number;
    let kino: KinoRun;
    if (order === 'raw-first') {
      rawMs = await raw();
      kino = await runKino(farm, source);
    } else {
      kino = await runKino(farm, source);
      rawMs = await raw();
    }
    const rawOutput = await describeRawOutput(
      out,
      ladder.map((r) => r.key),
    );
    const kinoOutput = await describeKinoOutput(farm, kino.videoId, out);
    const problems = compareLadders(rawOutput, kinoOutput);
    if (problems.length > 0) {
      throw new Error(
        `raw ffmpeg and Kino did not make the same ladder, so their times do not compare:\n  ${problems.join('\n  ')}\n  raw:  ${summarize(rawOutput)}\n  Kino: ${summarize(kinoOutput)}`,
      );
    }
    return { order, rawMs, kino, ladder: summarize(kinoOutput) };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sourcePath = await benchSource(seconds);
  const source = await readFile(sourcePath);
  const ladder = planLadder(
    'high',
    { width: 1920, height: 1080, frameRate: 30, hasAudio: true },
    { ...defaultEncodingParameters, compressionRatio },
  );
  log(
    `ladder: ${ladder.map((r) => `${r.key} ${r.width}x${r.height} ${r.videoBitrateKbps}k`).join(', ')}; x264 ${ladder[0]!.x264Preset}`,
  );

  log('starting the farm (PostgreSQL, Temporal, SeaweedFS, kino api, kino orchestrator, nodes)...');
  const farm = await startFarm({
    heartbeatTimeoutMs: 10_000,
    // Whole-file encodes, as this benchmark has always measured them (chunks.ts measures chunking); ENCODE_CHUNK_SECONDS overrides.
    orchestratorEnv: { ENCODE_CHUNK_SECONDS: process.env.ENCODE_CHUNK_SECONDS ?? '0' },
  });
  try {
    for (let i = 0; i < Number(options.nodes); i += 1)
      await farm.startNode(`bench-${i}`, { slots: Number(options.slots) });
    const pairs: Pair[] = [];
    // Run 0 is the warm-up (caches, JIT, first workflow): run, checked, not counted.
    for (let run = 0; run <= runs; run += 1) {
      const pair = await runPair(farm, source, sourcePath, ladder, run % 2 === 1 ? 'raw-first' : 'kino-first');
      log(
        `${run === 0 ? 'warm-up' : `pair ${run}`} (${pair.order}): raw ${s(pair.rawMs)}, Kino ${s(pair.kino.totalMs)}, ratio ${(pair.kino.totalMs / pair.rawMs).toFixed(3)}`,
      );
      if (run > 0) pairs.push(pair);
    }
    const rawTimes = pairs.map((p) => p.rawMs);
    const kinoRuns = pairs.map((p) => p.kino);
    const ratios = pairs.map((p) => p.kino.totalMs / p.rawMs);
    const rawMedian = median(rawTimes);
    const kinoMedian = median(kinoRuns.map((k) => k.totalMs));
    const lines = [
      '',
      `bench/encode: ${seconds} s 1080p30 + audio, preset high (${ladder.map((r) => r.key).join(', ')}), x264 ${ladder[0]!.x264Preset}, ${runs} pairs after a warm-up, alternating order, ${options.nodes} node(s) x ${options.slots} slots, grouping ${options.grouping}`,
      `raw ffmpeg (one command): ${rawTimes.map(s).join(', ')}  median ${s(rawMedian)}`,
      `Kino (process -> ready):  ${kinoRuns.map((k) => s(k.totalMs)).join(', ')}  median ${s(kinoMedian)}`,
      `paired ratios Kino / raw: ${ratios.map((r) => r.toFixed(3)).join(', ')}  median ${median(ratios).toFixed(3)}  (goal <= 1.15)`,
      `ladder (checked the same on both sides every pair): ${pairs[0]!.ladder}`,
      '',
      "where Kino's time goes (median over runs, along the last rendition to finish):",
    ];
    for (const phase of Object.keys(kinoRuns[0]!.phases)) {
      lines.push(`  ${phase.padEnd(52)} ${s(median(kinoRuns.map((k) => k.phases[phase]!))).padStart(8)}`);
    }
    lines.push(
      `  ${'-> the encode itself vs the raw command'.padEnd(52)} ${s(median(kinoRuns.map((k) => k.phases['ffmpeg encode (segments upload meanwhile)']!)) - rawMedian).padStart(8)} ` +
        (options.grouping === 'ladder'
          ? '(one ffmpeg decoding the source once for the whole ladder, as the raw command)'
          : '(one ffmpeg per rendition, each decoding the 1080p source, vs one decode split three ways)'),
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await farm.stop();
  }
}

await main();
