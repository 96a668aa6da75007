// bench/encode: from the process call to `ready` for a 60 s 1080p30 clip with audio on the `high`
// preset (480p, 720p, 1080p), against ONE raw ffmpeg command making the same ladder (same sizes,
// bitrates, x264 preset, GOP, forced keyframes, 6 s fMP4 HLS segments) on the same machine, in the
// same run, alternating. Prints every run, the medians, the ratio, and where Kino's extra time goes.
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
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { makeClip } from '@kino/test/support/media';
import { planLadder, type ProcessVideoResult, type RenditionPlan } from '@kino/control-plane/orchestrator';
import { getVideo } from '@kino/control-plane/repositories';
import { startFarm, type Farm } from '../../test/farm/farm.ts';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '60' },
    nodes: { type: 'string', default: '1' },
    slots: { type: 'string', default: '2' },
    grouping: { type: 'string', default: process.env.ENCODE_GROUPING ?? 'auto' },
  },
});
const runs = Number(options.runs);
if (!['auto', 'ladder', 'rendition'].includes(options.grouping)) throw new Error(`--grouping is auto, ladder or rendition, not ${options.grouping}`);
process.env.ENCODE_GROUPING = options.grouping; // the orchestrator process inherits it
const seconds = Number(options.seconds);
const compressionRatio = 'veryfast'; // the spec's default

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The ladder Kino plans for this source, made by one ffmpeg: split, scale, encode, one HLS muxer. */
function rawLadderArgs(input: string, ladder: RenditionPlan[]): string[] {
  const split = `[0:v]split=${ladder.length}${ladder.map((_, i) => `[s${i}]`).join('')}`;
  const scales = ladder.map((r, i) => `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,setsar=1[v${i}]`);
  const gop = Math.round(ladder[0]!.frameRate * 2); // 2 s, as the nodes' gopFrames()
  const args = ['-hide_banner', '-loglevel', 'error', '-y', '-i', input, '-filter_complex', [split, ...scales].join(';')];
  ladder.forEach((_, i) => args.push('-map', `[v${i}]`, '-map', '0:a:0'));
  args.push(
    '-c:v', 'libx264', '-preset', ladder[0]!.x264Preset, '-pix_fmt', 'yuv420p',
    '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0',
    '-force_key_frames', `expr:gte(t,n_forced*${ladder[0]!.segmentSeconds})`, '-forced-idr', '1',
  );
  ladder.forEach((r, i) => {
    const maxrate = Math.round(r.videoBitrateKbps * 1.5);
    args.push(`-b:v:${i}`, `${r.videoBitrateKbps}k`, `-maxrate:v:${i}`, `${maxrate}k`, `-bufsize:v:${i}`, `${maxrate * 2}k`);
  });
  args.push(
    '-c:a', 'aac', '-b:a', `${ladder[0]!.audioBitrateKbps}k`, '-ac', '2', '-ar', '48000',
    '-map_metadata', '-1',
    '-f', 'hls', '-hls_time', String(ladder[0]!.segmentSeconds), '-hls_playlist_type', 'vod',
    '-hls_segment_type', 'fmp4', '-hls_fmp4_init_filename', 'init.mp4', '-hls_segment_filename', '%v/seg-%05d.m4s',
    '-hls_flags', 'independent_segments', '-master_pl_name', 'master.m3u8',
    '-var_stream_map', ladder.map((r, i) => `v:${i},a:${i},name:${r.key}`).join(' '),
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
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))));
  });
}

async function segmentCounts(dir: string, keys: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (await readdir(join(dir, key))).filter((n) => n.endsWith('.m4s')).length;
  return counts;
}

interface KinoRun {
  totalMs: number;
  phases: Record<string, number>;
  segments: Record<string, number>;
}

type HistoryEvent = NonNullable<Awaited<ReturnType<ReturnType<Farm['temporal']['workflow']['getHandle']>['fetchHistory']>>['events']>[number];

function eventMs(event: HistoryEvent): number {
  const time = event.eventTime!;
  return Number(time.seconds) * 1000 + Math.round((time.nanos ?? 0) / 1e6);
}

/** Kino's time split along the critical path: the rendition that finished last. */
async function runKino(farm: Farm, source: Buffer): Promise<KinoRun> {
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, { filename: 'bench.mp4', fileSize: source.length, contentType: 'video/mp4' });
  await farm.kino.uploads.putFile(ticket, source, 'video/mp4');

  const calledAt = Date.now();
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'high',
    allowPublicAccess: true,
    videoName: 'bench',
    compressionRatio,
  });
  const handle = farm.temporal.workflow.getHandle(`video:${videoID}`);
  const result = (await handle.result()) as ProcessVideoResult;
  if (result.status !== 'ready') throw new Error(`Kino run ended ${result.status}: ${JSON.stringify(result)}`);
  const readyAt = (await getVideo(farm.db, videoID))!.ready_at!.getTime();

  const history = (await handle.fetchHistory()).events ?? [];
  const types = new Map<number, { type: string; scheduledAt: number; activityId: string }>();
  const started = new Map<number, number>();
  const completed = new Map<number, number>();
  let workflowStartedAt = 0;
  for (const event of history) {
    if (event.workflowExecutionStartedEventAttributes) workflowStartedAt = eventMs(event);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(Number(event.eventId), { type: scheduled.activityType?.name ?? '', scheduledAt: eventMs(event), activityId: scheduled.activityId ?? '' });
    if (event.activityTaskStartedEventAttributes) started.set(Number(event.activityTaskStartedEventAttributes.scheduledEventId), eventMs(event));
    if (event.activityTaskCompletedEventAttributes) completed.set(Number(event.activityTaskCompletedEventAttributes.scheduledEventId), eventMs(event));
  }
  const activities = [...types.entries()].map(([id, info]) => ({ ...info, startedAt: started.get(id) ?? 0, completedAt: completed.get(id) ?? 0 }));
  const probeDone = Math.max(...activities.filter((a) => a.type === 'probeSource').map((a) => a.completedAt));
  const encodes = activities.filter((a) => a.type === 'encodeRendition' || a.type === 'encodeRenditions').sort((a, b) => a.completedAt - b.completedAt);
  const last = encodes.at(-1)!;
  // The last-finishing rendition's own account of its attempt (see EncodeTimings).
  const lastKey = result.renditions.map((r) => r.outcome).sort((a, b) => a.timings.encodeMs + a.timings.finishMs - (b.timings.encodeMs + b.timings.finishMs)).at(-1)!;
  const { prepareMs, startupMs, encodeMs, finishMs } = lastKey.timings;
  const activityRun = last.completedAt - last.startedAt;

  const segments: Record<string, number> = {};
  for (const key of await farm.storage.list(`videos/${videoID}/hls/`)) {
    const match = /hls\/(\d+p)\/seg-/.exec(key);
    if (match) segments[match[1]!] = (segments[match[1]!] ?? 0) + 1;
  }
  return {
    totalMs: readyAt - calledAt,
    segments,
    phases: {
      'API call + workflow start': workflowStartedAt - calledAt,
      'load video + probe (on a node)': probeDone - workflowStartedAt,
      'queueing (capacity check, dispatch)': last.startedAt - probeDone,
      'presign + take slot': prepareMs,
      'node start (its probe, ffmpeg start, first bytes)': startupMs,
      'ffmpeg encode (segments upload meanwhile)': encodeMs,
      'upload tail (last segment, init, playlist)': finishMs,
      'activity bookkeeping (heartbeats, completion)': Math.max(0, activityRun - prepareMs - startupMs - encodeMs - finishMs),
      'master playlist + thumbnail + mark ready': readyAt - last.completedAt,
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const sourcePath = join(tmpdir(), `kino-bench-source-${seconds}s-1080p30.mp4`);
  if (!existsSync(sourcePath)) {
    log(`making the source: ${seconds} s, 1920x1080, 30 fps, with audio -> ${sourcePath}`);
    await makeClip({ seconds, width: 1920, height: 1080, fps: 30, audio: true, path: sourcePath });
  }
  const source = await readFile(sourcePath);
  const ladder = planLadder('high', { width: 1920, height: 1080, frameRate: 30, hasAudio: true }, {
    maxEdgeLength: -1,
    maxFrameRate: -1,
    pixelFormat: 'yuv420p',
    rateControlMode: 'variableBitrate',
    twoPassVBREncoding: false,
    compressionRatio,
    audioCodec: 'aac',
  });
  log(`ladder: ${ladder.map((r) => `${r.key} ${r.width}x${r.height} ${r.videoBitrateKbps}k`).join(', ')}; x264 ${ladder[0]!.x264Preset}`);

  log('starting the farm (PostgreSQL, Temporal, SeaweedFS, kino api, kino orchestrator, nodes)...');
  const farm = await startFarm({ heartbeatTimeoutMs: 10_000 });
  try {
    for (let i = 0; i < Number(options.nodes); i += 1) await farm.startNode(`bench-${i}`, { slots: Number(options.slots) });
    const rawTimes: number[] = [];
    const kinoRuns: KinoRun[] = [];
    for (let run = 1; run <= runs; run += 1) {
      const out = await mkdtemp(join(tmpdir(), 'kino-bench-raw-'));
      const rawMs = await runFfmpeg(rawLadderArgs(sourcePath, ladder), out);
      const rawSegments = await segmentCounts(out, ladder.map((r) => r.key));
      await rm(out, { recursive: true, force: true });
      rawTimes.push(rawMs);
      log(`run ${run}: raw ffmpeg ${s(rawMs)} (segments ${JSON.stringify(rawSegments)})`);

      const kino = await runKino(farm, source);
      kinoRuns.push(kino);
      log(`run ${run}: Kino       ${s(kino.totalMs)} (segments ${JSON.stringify(kino.segments)})`);
      const same = ladder.every((r) => kino.segments[r.key] === rawSegments[r.key]);
      if (!same) log('  note: segment counts differ between Kino and raw ffmpeg');
    }

    const rawMedian = median(rawTimes);
    const kinoMedian = median(kinoRuns.map((k) => k.totalMs));
    const lines = [
      '',
      `bench/encode: ${seconds} s 1080p30 + audio, preset high (${ladder.map((r) => r.key).join(', ')}), x264 ${ladder[0]!.x264Preset}, ${runs} runs, ${options.nodes} node(s) x ${options.slots} slots, grouping ${options.grouping}`,
      `raw ffmpeg (one command): ${rawTimes.map(s).join(', ')}  median ${s(rawMedian)}`,
      `Kino (process -> ready):  ${kinoRuns.map((k) => s(k.totalMs)).join(', ')}  median ${s(kinoMedian)}`,
      `ratio Kino / raw (medians): ${(kinoMedian / rawMedian).toFixed(3)}  (goal <= 1.15)`,
      '',
      'where Kino\'s time goes (median over runs, along the last rendition to finish):',
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
