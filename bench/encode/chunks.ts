// bench/encode chunks: what chunked encoding (docs/architecture.md#chunked-encoding) costs and buys,
// in one run, medians of --runs (at least 3):
//
// 1. chunked against whole-file on one core: the nodes' own ffmpeg commands (@kino/ffmpeg, ffmpeg/src) for
//    the `high` ladder of a 1080p30 clip, the whole file in one ffmpeg, and the audio track then every
//    chunk in turn, pinned to core 0 with one x264 thread; the ffmpeg processes' CPU time (user+sys),
//    each rendition's bitrate against its target and its PSNR against the source for both.
// 2. scaling: the farm, time from the process call to `ready`, one node pinned to one core against
//    two nodes pinned to two cores (taskset on the node processes; their ffmpeg children inherit it),
//    after a warm-up, the runs alternating in order; where each run's time went (the nodes' logs),
//    and how far the longest chunk of a video runs past its siblings (the measurement behind not
//    re-running stragglers, docs/decisions/encoding.md).
// 3. Kino on two pinned nodes against one raw ffmpeg making the same ladder with every core, in the
//    same alternation.
// 4. the work a node killed mid-video loses: the seconds of video of the chunks in flight on it,
//    against the whole-file design's (everything the node had encoded of the video by then).
//
//   node --import tsx bench/encode/chunks.ts [--runs 3] [--seconds 120] [--chunk 30] [--skip-farm] [--skip-local] [--skip-scaling]
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { nodeJobId, planLadder, type RenditionPlan } from '@kino/orchestrator';
import { setNodeDrainRequested } from '@kino/database/repositories';
import {
  defaultEncodingParameters,
  hlsInitName,
  hlsPlaylistName,
  hlsSegmentSeconds,
  renderMediaPlaylist,
  workflowIds,
} from '@kino/proto/contract';
import { resolveHlsSettings } from '@kino/encode-node';
import { audioTrackArgs, hlsLadderArgs, parseMediaPlaylist, probeMedia, type HlsEncodeSettings } from '@kino/ffmpeg';
import { planChunks } from '@kino/orchestrator';
import { nodeJobs, startFarm, type Farm, type FarmNodeProcess } from '../../test/farm/farm.ts';
import { benchSource, log, median, s, submitBenchVideo, waitForReady } from './common.ts';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '120' },
    chunk: { type: 'string', default: '30' },
    'skip-farm': { type: 'boolean', default: false },
    'skip-local': { type: 'boolean', default: false },
    'skip-scaling': { type: 'boolean', default: false },
  },
});
const runs = Math.max(3, Number(options.runs));
const seconds = Number(options.seconds);
const chunkSeconds = Number(options.chunk);
const compressionRatio = defaultEncodingParameters.compressionRatio;
const run = promisify(execFile);

/** Runs ffmpeg pinned to `cores` and returns its CPU time (user + sys, ms) from the shell's `times`. */
async function ffmpegCpuMs(args: string[], cwd: string, cores = '0'): Promise<number> {
  const script = 'taskset -c "$0" ffmpeg -hide_banner -loglevel error -y "$@" >/dev/null || exit 1; times';
  const { stdout } = await run('sh', ['-c', script, cores, ...args], { cwd, maxBuffer: 16 * 1024 * 1024 });
  // `times`: the shell's user and sys, then its children's.
  const children = stdout.trim().split('\n').at(-1)!;
  const [user, sys] = children.split(/\s+/).map((t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t)!;
    return (Number(m[1]) * 60 + Number(m[2])) * 1000;
  });
  return user! + sys!;
}

async function psnr(playlist: string, source: string, width: number, height: number): Promise<number> {
  const { stderr } = await run(
    'ffmpeg',
    [
      '-hide_banner',
      '-i',
      playlist,
      '-i',
      source,
      '-lavfi',
      `[1:v]scale=${width}:${height}:flags=bicubic,setsar=1[ref];[0:v][ref]psnr`,
      '-f',
      'null',
      '-',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return Number(/average:([\d.]+)/.exec(stderr)?.[1] ?? 'NaN');
}

/** Video+audio kbps of a rendition's segments over its playlist's duration. */
async function renditionKbps(dir: string): Promise<number> {
  const playlist = parseMediaPlaylist(await readFile(join(dir, hlsPlaylistName), 'utf8'));
  let bytes = 0;
  for (const segment of playlist.segments) bytes += (await stat(join(dir, segment.uri))).size;
  const duration = playlist.segments.reduce((sum, seg) => sum + seg.durationSeconds, 0);
  return (bytes * 8) / duration / 1000;
}

interface LocalRun {
  wholeCpuMs: number;
  chunkedCpuMs: number;
  /** Per rendition: kbps and PSNR of the whole-file and the chunked encode. */
  renditions: Record<
    string,
    { target: number; wholeKbps: number; chunkedKbps: number; wholePsnr: number; chunkedPsnr: number }
  >;
}

async function localRun(sourcePath: string, ladder: RenditionPlan[], settings: HlsEncodeSettings[]): Promise<LocalRun> {
  const dir = await mkdtemp(join(tmpdir(), 'kino-bench-chunks-'));
  try {
    const outputs = (root: string) => ladder.map((r, k) => ({ settings: settings[k]!, dir: join(root, r.key) }));
    const whole = join(dir, 'whole');
    for (const o of outputs(whole)) await mkdir(o.dir, { recursive: true });
    const wholeCpuMs = await ffmpegCpuMs(
      hlsLadderArgs({ input: sourcePath, outputs: outputs(whole), threads: 1, videoSeconds: seconds }),
      whole,
    );

    const chunked = join(dir, 'chunked');
    await mkdir(chunked);
    const audioTrack = join(chunked, 'audio.mp4');
    let chunkedCpuMs = await ffmpegCpuMs(
      audioTrackArgs({ input: sourcePath, audio: settings[0]!.audio!, output: audioTrack }),
      chunked,
    );
    const chunks = planChunks(seconds, chunkSeconds, hlsSegmentSeconds);
    for (const chunk of chunks) {
      const root = join(chunked, `chunk-${chunk.index}`);
      for (const o of outputs(root)) await mkdir(o.dir, { recursive: true });
      const window = {
        startSeconds: chunk.startSeconds,
        durationSeconds: chunk.durationSeconds,
        firstSegment: chunk.firstSegment,
        audioInput: audioTrack,
      };
      chunkedCpuMs += await ffmpegCpuMs(
        hlsLadderArgs({ input: sourcePath, outputs: outputs(root), threads: 1, chunk: window, videoSeconds: seconds }),
        root,
      );
    }
    // The chunks' segments joined as the orchestrator joins them: one playlist, the first chunk's init.
    for (const r of ladder) {
      const joined = join(chunked, r.key);
      await mkdir(joined);
      const segments = [];
      for (const chunk of chunks) {
        const from = join(chunked, `chunk-${chunk.index}`, r.key);
        for (const name of await readdir(from))
          if (name.endsWith('.m4s')) await writeFile(join(joined, name), await readFile(join(from, name)));
        segments.push(
          ...parseMediaPlaylist(await readFile(join(from, hlsPlaylistName), 'utf8')).segments.map((seg) => ({
            name: seg.uri,
            durationSeconds: seg.durationSeconds,
          })),
        );
      }
      await writeFile(join(joined, hlsInitName), await readFile(join(chunked, 'chunk-0', r.key, hlsInitName)));
      await writeFile(join(joined, hlsPlaylistName), renderMediaPlaylist(segments));
    }
    const renditions: LocalRun['renditions'] = {};
    for (const [k, r] of ladder.entries()) {
      const { width, height } = settings[k]!;
      renditions[r.key] = {
        target: r.videoBitrateKbps + r.audioBitrateKbps,
        wholeKbps: await renditionKbps(join(whole, r.key)),
        chunkedKbps: await renditionKbps(join(chunked, r.key)),
        wholePsnr: await psnr(join(whole, r.key, hlsPlaylistName), sourcePath, width, height),
        chunkedPsnr: await psnr(join(chunked, r.key, hlsPlaylistName), sourcePath, width, height),
      };
    }
    return { wholeCpuMs, chunkedCpuMs, renditions };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Pins a node process and every thread of it (its ffmpeg children inherit the mask) to `cores`. */
async function pin(node: FarmNodeProcess, cores: string): Promise<void> {
  await run('taskset', ['-a', '-cp', cores, String(node.process.child.pid)]);
}

/**
 * Where one video's time to `ready` went, from the nodes' logs (each encode job's slot time) and the
 * workflow's history (which activity each job was): the audio track, each chunk's encode, and what
 * came before and after them.
 */
interface KinoRun {
  totalMs: number;
  /** From the process call to the audio track's start on a node (upload check, probe, planning). */
  beforeMs: number;
  audioMs: number;
  /** Each chunk's encode on its node (slot granted to done), in chunk order. */
  chunkMs: number[];
  /** From the last chunk's end to `ready` (playlists, work files, the database). */
  afterMs: number;
}

/** An activity of a video's workflow, from its history: id, type, input (the chunk, for encodeChunk) and attempts. */
interface WorkflowActivity {
  activityId: string;
  type: string;
  chunk?: { index: number; startSeconds: number; durationSeconds: number };
  /** The attempt that started last (1 unless it was retried). */
  attempt: number;
}

async function workflowActivities(farm: Farm, videoId: string): Promise<WorkflowActivity[]> {
  const history = await farm.temporal.workflow.getHandle(workflowIds.processVideo(videoId)).fetchHistory();
  const byEventId = new Map<number, WorkflowActivity>();
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityId) {
      const input = JSON.parse(Buffer.from(scheduled.input?.payloads?.[0]?.data ?? '{}').toString('utf8')) as Pick<
        WorkflowActivity,
        'chunk'
      >;
      byEventId.set(Number(event.eventId), {
        activityId: scheduled.activityId,
        type: scheduled.activityType?.name ?? '',
        ...(input.chunk ? { chunk: input.chunk } : {}),
        attempt: 1,
      });
    }
    const started = event.activityTaskStartedEventAttributes;
    const activity = started && byEventId.get(Number(started.scheduledEventId));
    if (activity) activity.attempt = started.attempt ?? 1;
  }
  return [...byEventId.values()];
}

async function kinoRun(farm: Farm, nodes: FarmNodeProcess[], source: Buffer): Promise<KinoRun> {
  const { videoId, calledAt } = await submitBenchVideo(farm, source, compressionRatio);
  const { readyAt } = await waitForReady(farm, videoId);
  // Each activity's node job, by the id the orchestrator gave it (nodeJobId).
  const { runId } = await farm.temporal.workflow.getHandle(workflowIds.processVideo(videoId)).describe();
  const jobs = new Map(
    (await Promise.all(nodes.map((node) => nodeJobs(node))))
      .flat()
      .filter((j) => j.endedAt !== undefined)
      .map((j) => [j.jobId, j]),
  );
  const activities = await workflowActivities(farm, videoId);
  const jobOf = (activity: WorkflowActivity) => jobs.get(nodeJobId(videoId, activity.activityId, runId));
  const audio = jobOf(activities.find((a) => a.type === 'encodeAudioTrack')!);
  const chunks = activities
    .filter((a) => a.type === 'encodeChunk')
    .sort((x, y) => x.chunk!.index - y.chunk!.index)
    .map(jobOf);
  if (!audio || chunks.length === 0 || chunks.some((j) => !j))
    throw new Error(`no audio track or chunk jobs for ${videoId} in the nodes' logs`);
  return {
    totalMs: readyAt - calledAt,
    beforeMs: audio.startedAt - calledAt,
    audioMs: audio.endedAt! - audio.startedAt,
    chunkMs: chunks.map((j) => j!.endedAt! - j!.startedAt),
    afterMs: readyAt - Math.max(...chunks.map((j) => j!.endedAt!)),
  };
}

const describeRun = (r: KinoRun) =>
  `${s(r.totalMs)} (${s(r.beforeMs)} before the audio track, audio ${s(r.audioMs)}, chunks ${r.chunkMs.map((ms) => (ms / 1000).toFixed(1)).join('/')} s, ${s(r.afterMs)} after the last)`;

/** The longest chunk of a video over its median chunk: how far a straggler runs past its siblings. */
const chunkSpread = (r: KinoRun) => Math.max(...r.chunkMs) / median(r.chunkMs);

/** The raw ffmpeg ladder with every core: the nodes' own ladder command, x264 choosing its threads, local files. */
async function rawLadderMs(
  sourcePath: string,
  ladder: RenditionPlan[],
  settings: HlsEncodeSettings[],
): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'kino-bench-raw-'));
  try {
    for (const r of ladder) await mkdir(join(dir, r.key));
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const args = [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        ...hlsLadderArgs({
          input: sourcePath,
          outputs: ladder.map((r, k) => ({ settings: settings[k]!, dir: r.key })),
          threads: 0,
          videoSeconds: seconds,
        }),
      ];
      const child = spawn('ffmpeg', args, { cwd: dir, stdio: 'ignore' });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
    });
    return performance.now() - started;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Kills the node with a chunk in flight once half the chunks are done; the seconds of video each
 * design loses. The chunked side is read from the workflow's history: every chunk that needed a
 * second attempt was in flight on the killed node.
 */
async function nodeLoss(
  farm: Farm,
  nodes: FarmNodeProcess[],
  source: Buffer,
): Promise<{ chunkedLostSeconds: number; wholeFileLostSeconds: number }> {
  const { videoId } = await submitBenchVideo(farm, source, compressionRatio);
  const chunks = planChunks(seconds, chunkSeconds, hlsSegmentSeconds);
  for (;;) {
    const jobs = (
      await Promise.all(
        nodes.map(async (node) =>
          (await nodeJobs(node)).filter((j) => j.jobId.startsWith(videoId)).map((j) => ({ node, j })),
        ),
      )
    ).flat();
    // The audio track, then the chunks.
    const finishedChunks = jobs.filter(({ j }) => j.endedAt !== undefined).length - 1;
    const running = jobs.find(({ j }) => j.endedAt === undefined);
    if (running && finishedChunks >= Math.floor(chunks.length / 2)) {
      await running.node.process.kill9();
      await waitForReady(farm, videoId);
      let chunkedLostSeconds = 0;
      for (const { type, chunk, attempt } of await workflowActivities(farm, videoId)) {
        if (type === 'encodeChunk' && attempt > 1)
          chunkedLostSeconds += Math.min(chunk!.durationSeconds, seconds - chunk!.startSeconds);
      }
      // A whole-file encode on that node would have lost everything it had encoded: at least the finished chunks' seconds.
      const wholeFileLostSeconds = Math.min(seconds, finishedChunks * chunkSeconds + chunkedLostSeconds);
      return { chunkedLostSeconds, wholeFileLostSeconds };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(): Promise<void> {
  const sourcePath = await benchSource(seconds);
  const source = await readFile(sourcePath);
  const info = await probeMedia(sourcePath);
  const ladder = planLadder(
    'high',
    { width: info.width, height: info.height, frameRate: info.frameRate, hasAudio: info.hasAudio },
    { ...defaultEncodingParameters, compressionRatio },
  );
  const settings = ladder.map((r) =>
    resolveHlsSettings(
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
  );
  log(
    `source ${seconds} s 1080p30, ladder ${ladder.map((r) => r.key).join(' ')}, ${compressionRatio} (${ladder[0]!.x264Preset}), ${chunkSeconds} s chunks, ${runs} runs, ${cpus().length} cores, load ${(await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')}`,
  );

  const locals: LocalRun[] = [];
  for (let i = 0; i < (options['skip-local'] ? 0 : runs); i += 1) {
    const r = await localRun(sourcePath, ladder, settings);
    log(
      `  one core: whole ${s(r.wholeCpuMs)} CPU, chunked ${s(r.chunkedCpuMs)} CPU (${((r.chunkedCpuMs / r.wholeCpuMs - 1) * 100).toFixed(1)} %)`,
    );
    locals.push(r);
  }
  const lines: string[] = [];
  if (locals.length > 0) {
    const extra = median(locals.map((r) => r.chunkedCpuMs / r.wholeCpuMs - 1)) * 100;
    lines.push(`chunked vs whole-file CPU on one core: median extra ${extra.toFixed(1)} % (goal <= 5 %)`);
  }
  for (const r of locals.length > 0 ? ladder : []) {
    const m = (f: (x: LocalRun['renditions'][string]) => number) => median(locals.map((l) => f(l.renditions[r.key]!)));
    lines.push(
      `  ${r.key}: target ${r.videoBitrateKbps}+${r.audioBitrateKbps} kbps; whole ${m((x) => x.wholeKbps).toFixed(0)} kbps ${m((x) => x.wholePsnr).toFixed(2)} dB; ` +
        `chunked ${m((x) => x.chunkedKbps).toFixed(0)} kbps ${m((x) => x.chunkedPsnr).toFixed(2)} dB (PSNR diff ${m((x) => x.chunkedPsnr - x.wholePsnr).toFixed(2)} dB)`,
    );
  }

  if (!options['skip-farm']) {
    const farm = await startFarm({ orchestratorEnv: { ENCODE_CHUNK_SECONDS: String(chunkSeconds) } });
    try {
      const a = await farm.startNode('bench-a', { slots: 1, threads: 1 });
      await pin(a, '0');
      const b = await farm.startNode('bench-b', { slots: 1, threads: 1 });
      await pin(b, '1');
      // One node is node b drained (an operator's drain: it takes no new work, probes and storyboards
      // included), so the 1-node and 2-node runs alternate on the same processes and pinned cores.
      const onNodes = async (count: 1 | 2): Promise<KinoRun> => {
        await setNodeDrainRequested(farm.db, b.nodeId, count === 1);
        return kinoRun(farm, [a, b], source);
      };
      const one: KinoRun[] = [];
      const two: KinoRun[] = [];
      const raw: number[] = [];
      if (!options['skip-scaling']) {
        // A warm-up (the workers' first workflow and activities, the page cache), not counted.
        log(`  warm-up, 2 nodes: ${describeRun(await onNodes(2))}`);
        for (let i = 0; i < runs; i += 1) {
          // Alternating order: 1 node, 2 nodes, raw; then raw, 2 nodes, 1 node.
          const steps = [
            async () => one.push(await onNodes(1)),
            async () => two.push(await onNodes(2)),
            async () => raw.push(await rawLadderMs(sourcePath, ladder, settings)),
          ];
          for (const step of i % 2 === 0 ? steps : steps.reverse()) await step();
          log(`  run ${i + 1}: 1 node ${describeRun(one[i]!)}`);
          log(`         2 nodes ${describeRun(two[i]!)}; raw ffmpeg ${s(raw[i]!)}`);
        }
        // Both the ratio of the medians and the median of the runs' own ratios (run i of each side).
        const oneMs = one.map((r) => r.totalMs);
        const twoMs = two.map((r) => r.totalMs);
        const ratios = (x: number[], y: number[]) => median(x.map((t, i) => t / y[i]!)).toFixed(2);
        lines.push(
          `scaling, time to ready: 1 node on 1 core ${s(median(oneMs))}, 2 nodes on 2 cores ${s(median(twoMs))}: speedup ${(median(oneMs) / median(twoMs)).toFixed(2)}, median of per-run ratios ${ratios(oneMs, twoMs)} (goal >= 1.8)`,
        );
        lines.push(
          `Kino on 2 pinned nodes against raw ffmpeg with every core: ${s(median(twoMs))} vs ${s(median(raw))}: ${(median(raw) / median(twoMs)).toFixed(2)} of raw's speed, Kino/raw time ${(median(twoMs) / median(raw)).toFixed(2)}, median of per-run ratios ${ratios(twoMs, raw)} (goal <= 0.9)`,
        );
        const m = (runs: KinoRun[], f: (r: KinoRun) => number) => s(median(runs.map(f)));
        lines.push(
          `  2 nodes, medians: ${m(two, (r) => r.beforeMs)} before the audio track, audio ${m(two, (r) => r.audioMs)}, a chunk ${m(two, (r) => median(r.chunkMs))}, ${m(two, (r) => r.afterMs)} after the last chunk`,
        );
        lines.push(
          `chunk spread, longest chunk over its video's median chunk: 2 nodes ${median(two.map(chunkSpread)).toFixed(2)} (max ${Math.max(...two.map(chunkSpread)).toFixed(2)}), ` +
            `1 node ${median(one.map(chunkSpread)).toFixed(2)} (max ${Math.max(...one.map(chunkSpread)).toFixed(2)}; the storyboard shares its core)`,
        );
      }
      await setNodeDrainRequested(farm.db, b.nodeId, false);
      const loss = await nodeLoss(farm, [a, b], source);
      lines.push(
        `node killed mid-video: chunked loses ${loss.chunkedLostSeconds} s of video to re-encode, the whole-file design ${loss.wholeFileLostSeconds} s`,
      );
    } finally {
      await farm.stop();
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
