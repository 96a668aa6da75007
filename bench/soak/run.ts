// bench/soak: the farm under churn (not in CI). N uploads (default 50) go in at once on the dev stack
// (test/farm/farm.ts: PostgreSQL, Temporal, SeaweedFS, API, orchestrator, three encode nodes with one
// slot each, delivery, the chDB analytics store) while a chaos loop kills with SIGKILL and restarts
// a random encode node, the delivery node, the orchestrator or the API (each once per round of
// every kind, in a random order), on a bounded schedule (--disruptions, one every --every seconds after the last
// part is back) that runs to its end even when the videos are ready before it, so every kind of part
// is reached. `--harsh` is an operator's bad day: 30 s clips, a disruption every 5 s, and among the
// disruptions an encode node that hangs (SIGSTOP for twice the registry's heartbeat timeout, then
// SIGCONT: its work moves on, and it comes back with stale work). Each video, once
// ready, is played: every segment of its playlist fetched once from delivery (retried when delivery
// is down). At the end it checks, and prints the counts of:
//   - videos `ready`, each decoding every frame of the source (its master playlist, from storage),
//     none still `transcoding` a minute after the last disruption ended and the last other video
//     became ready (stalled, not queued); the slowest video's time
//     from its process call to `ready` against the median of the undisturbed videos (those whose
//     workflow retried no activity);
//   - segments served (fetched whole by the players) against segment rows counted in analytics
//     (distinct row ids, and rows in all, which shows duplicates the table's FINAL folds);
//   - leftovers: objects under a video's work/ prefix or of no video, files in node work
//     directories, batches left in delivery's segment-log spool; originals no video was made from
//     (uploads retried while the API was down), and that the API's sweep removes every one of them
//     once their bound has passed (run with the clock moved a day past the last ticket's expiry).
// Exits 1 when a check fails.
//
//   node --import tsx bench/soak/run.ts [--uploads 50] [--seconds 8] [--disruptions 8] [--every 10] [--harsh]
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { waitFor } from '@kino/dev';
import { objectKeys } from '@kino/proto/contract';
import { sweepUnprocessedOriginals, UNPROCESSED_ORIGINAL_GRACE_MS } from '@kino/api';
import { countDecodedFrames, countFramesInFile, makeClip } from '../../test/support/media.ts';
import { attemptsByActivity, startFarm, type Farm } from '../../test/farm/farm.ts';

/** `--harsh`: the schedule that found videos stalled for 15 minutes behind a killed orchestrator. */
const harsh = { uploads: '50', seconds: '30', disruptions: '8', every: '5' };
const { values: given } = parseArgs({
  options: {
    uploads: { type: 'string' },
    seconds: { type: 'string' },
    disruptions: { type: 'string' },
    every: { type: 'string' },
    harsh: { type: 'boolean', default: false },
  },
});
const options = { ...(given.harsh ? harsh : { uploads: '50', seconds: '8', disruptions: '8', every: '10' }), ...given };
const uploads = Number(options.uploads);
const seconds = Number(options.seconds);
const disruptions = Number(options.disruptions);
const everyMs = Number(options.every) * 1000;
/**
 * How long a video may still be `transcoding` once the last disruption ended and the last other
 * video became ready: a video that lags the rest by more is stalled (an activity lost behind a long
 * timeout), not queued (on a busy machine a queue of 30 s clips outlasts the schedule).
 */
const settleMs = 60_000;

const log = (line: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nodeNames = ['a', 'b', 'c'];
/** The registry's heartbeat timeout in the soak's farm: a node silent this long is gone. */
const heartbeatTimeoutMs = 5_000;

/** Retries an action while the part it talks to is down (a connection refused or reset, a 5xx). */
async function whileDown<T>(what: string, action: () => Promise<T>, attempts = 120): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      const message = (error as Error).message;
      const transient =
        /fetch failed|ECONNREFUSED|ECONNRESET|UND_ERR|socket|terminated|other side closed|50[234]|unavailable|timed? ?out/i.test(
          `${message} ${String((error as { cause?: unknown }).cause)}`,
        );
      if (!transient || attempt >= attempts) throw new Error(`${what}: ${message}`);
      await sleep(500);
    }
  }
}

/**
 * Kills and restarts random parts (with `--harsh`, also hangs an encode node), one every `everyMs`,
 * `disruptions` times, to the end of the schedule; records what it did and when the last part was
 * back (`state.endedAt`).
 */
async function chaos(farm: Farm, state: { chaosEndedAt?: number }): Promise<string[]> {
  const done: string[] = [];
  const kinds = [
    ...(options.harsh ? (['node-hang'] as const) : []),
    'node',
    'delivery',
    'orchestrator',
    'api',
  ] as const;
  let round: Array<(typeof kinds)[number]> = [];
  for (let i = 0; i < disruptions; i++) {
    await sleep(everyMs);
    // Each round takes every kind once, in a random order: none is left out by chance.
    if (i % kinds.length === 0) round = [...kinds].sort(() => Math.random() - 0.5);
    const kind = round[i % kinds.length]!;
    const part =
      kind === 'node' || kind === 'node-hang'
        ? `node-${nodeNames[Math.floor(Math.random() * nodeNames.length)]}`
        : kind;
    const startedAt = Date.now();
    if (kind === 'node-hang') {
      // Long enough for the registry to mark it gone and its jobs, of every kind, to move.
      const hung = farm.launcher.process(part);
      hung.pause();
      await sleep(2 * heartbeatTimeoutMs);
      hung.resume();
      done.push(`${part} (hung)`);
      log(`hung ${part} (SIGSTOP, SIGCONT after ${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
      continue;
    }
    await farm.launcher.kill9(part);
    await sleep(1000);
    await farm.launcher.restart(part);
    done.push(part);
    log(`killed -9 and restarted ${part} (back in ${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
  }
  state.chaosEndedAt = Date.now();
  return done;
}

/**
 * Waits until the video is `ready`; fails once it is still `transcoding` a minute after both the
 * last disruption ended and the last other video became ready, or if it ends `failed`.
 */
async function waitUntilReady(
  farm: Farm,
  videoId: string,
  progress: { chaosEndedAt?: number; lastReadyAt: number },
): Promise<void> {
  for (;;) {
    const details = await whileDown(`video ${videoId}`, () => farm.kino.videos.get(farm.orgId, videoId));
    if (details.status.ready) {
      progress.lastReadyAt = Date.now();
      return;
    }
    if (!details.status.transcoding) throw new Error(`video ${videoId} ended ${JSON.stringify(details.status)}`);
    if (
      progress.chaosEndedAt !== undefined &&
      Date.now() > Math.max(progress.chaosEndedAt, progress.lastReadyAt) + settleMs
    ) {
      throw new Error(
        `video ${videoId} still transcoding ${settleMs / 1000} s after the last disruption ended and the last other video became ready`,
      );
    }
    await sleep(500);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Plays a ready video the way a player does: master, the first variant's playlist, each segment once. */
async function play(farm: Farm, videoId: string): Promise<number> {
  const base = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}`;
  const text = (path: string) =>
    whileDown(`GET ${path}`, async () => {
      const response = await fetch(`${base}/${path}`);
      if (!response.ok) throw new Error(`${path}: ${response.status}`);
      return response.text();
    });
  const variant = (await text('master.m3u8')).split('\n').find((line) => line && !line.startsWith('#'))!;
  const dir = variant.slice(0, variant.lastIndexOf('/') + 1);
  const segments = (await text(variant)).split('\n').filter((line) => line.endsWith('.m4s'));
  for (const segment of segments) {
    await whileDown(`GET ${dir}${segment}`, async () => {
      const response = await fetch(`${base}/${dir}${segment}`);
      if (!response.ok) throw new Error(`${segment}: ${response.status}`);
      await response.arrayBuffer();
    });
  }
  return segments.length;
}

async function filesUnder(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), 'kino-soak-'));
  const clipPath = await makeClip({
    seconds,
    width: 640,
    height: 360,
    fps: 30,
    audio: true,
    path: join(workDir, 'clip.mp4'),
  });
  const clip = await readFile(clipPath);
  const sourceFrames = await countFramesInFile(clipPath);
  log(
    `starting the farm (three encode nodes with one slot each, delivery, analytics); ${uploads} uploads of a ${seconds} s 640x360 clip`,
  );
  // Every client of the soak shares one key: the API's rate limits (a guard against one tenant) would
  // turn the churn under test into 429s, so they are lifted.
  const farm = await startFarm({
    playback: true,
    heartbeatTimeoutMs,
    apiEnv: { RATE_LIMITS: 'general=1000000,video=1000000,uploadUrl=1000000,uploadUrlPerKey=1000000' },
  });
  const failures: string[] = [];
  try {
    await Promise.all(nodeNames.map((name) => farm.startNode(name, { threads: 1 })));
    const startedAt = Date.now();
    const progress: { chaosEndedAt?: number; lastReadyAt: number } = { lastReadyAt: startedAt };
    const chaosRun = chaos(farm, progress);

    let served = 0;
    /** Seconds from each video's process call to `ready`. */
    const secondsToReady = new Map<string, number>();
    // An upload that fails is a finding, not the end of the run: it is counted and the rest go on.
    const outcomes = await Promise.all(
      Array.from({ length: uploads }, async (_, i) => {
        try {
          const videoId = await whileDown(`upload ${i}`, () => farm.submitVideo(clip, { filename: `soak-${i}.mp4` }));
          const processedAt = Date.now();
          await waitUntilReady(farm, videoId, progress);
          secondsToReady.set(videoId, (Date.now() - processedAt) / 1000);
          const segments = await play(farm, videoId);
          served += segments;
          return videoId;
        } catch (error) {
          failures.push(`upload ${i}: ${(error as Error).message}`);
          log(`upload ${i} failed: ${(error as Error).message}`);
          return undefined;
        }
      }),
    );
    const videoIds = outcomes.filter((id): id is string => id !== undefined);
    log(
      `${videoIds.length} of ${uploads} videos ready and played in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
    );
    const disrupted = await chaosRun.catch((error: Error) => {
      failures.push(`chaos: ${error.message}`);
      return [`(stopped: ${error.message})`];
    });
    log(`disruptions: ${disrupted.join(', ') || 'none'}`);

    // The slowest video against the undisturbed ones: those whose workflow retried no activity.
    const undisturbed: number[] = [];
    for (const videoId of videoIds) {
      const attempts = await attemptsByActivity(farm, videoId);
      if (Object.values(attempts).every((attempt) => attempt === 1)) undisturbed.push(secondsToReady.get(videoId)!);
    }
    const [slowestVideo, slowestSeconds] = [...secondsToReady].reduce((a, b) => (b[1] > a[1] ? b : a), ['', 0]);
    const undisturbedMedian = undisturbed.length > 0 ? median(undisturbed) : undefined;
    log(
      `slowest to ready: ${slowestVideo} in ${slowestSeconds.toFixed(1)} s; undisturbed median ${undisturbedMedian?.toFixed(1) ?? '-'} s ` +
        `(${undisturbed.length} videos)${undisturbedMedian ? `, ${(slowestSeconds / undisturbedMedian).toFixed(1)}x` : ''}`,
    );

    // Every frame of every video.
    let framesOk = 0;
    for (const videoId of videoIds) {
      const dir = join(workDir, videoId);
      await farm.downloadVideo(videoId, dir);
      const frames = await countDecodedFrames(join(dir, 'hls', 'master.m3u8'));
      if (frames === sourceFrames) framesOk += 1;
      else failures.push(`${videoId} decodes ${frames} frames, not ${sourceFrames}`);
    }

    // Every segment served counted once: wait for delivery's spool to ship what it has.
    const ids = videoIds.map((id) => `'${id}'`).join(',');
    const count = async () =>
      (
        await farm.clickhouse!.query<{ rows: number; distinct: number }>(
          `SELECT count() AS rows, uniqExact(row_id) AS distinct FROM segment_deliveries WHERE video_id IN (${ids})`,
        )
      )[0]!;
    let counted = await count();
    await waitFor(
      'analytics to count every segment served',
      async () => {
        counted = await count();
        return Number(counted.distinct) >= served ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    ).catch(() => undefined);
    if (Number(counted.distinct) !== served) failures.push(`segments served ${served}, counted ${counted.distinct}`);

    // Leftovers: storage objects that are not a ready video's or an original upload, work files.
    const keys = await farm.storage.list('');
    const known = new Set(videoIds);
    const workObjects = keys.filter((key) => videoIds.some((id) => key.startsWith(objectKeys.workPrefix(id))));
    const strayObjects = keys.filter((key) => {
      if (key.startsWith('uploads/')) return false;
      const id = /^videos\/([^/]+)\//.exec(key)?.[1];
      return !id || !known.has(id);
    });
    const uploadsLeft = keys.filter((key) => key.startsWith('uploads/')).length;
    // Originals no video was made from (an upload retried while the API was down), and the API's
    // sweep run with its clock a day past the last ticket's expiry: every one of them goes.
    const neverProcessed = async () => {
      const storagePaths = new Set(
        (await farm.db.selectFrom('videos').select('storage_path').execute()).map((v) => v.storage_path),
      );
      return (await farm.storage.list('uploads/')).filter((key) => !storagePaths.has(key));
    };
    const originalsNeverProcessed = (await neverProcessed()).length;
    const lastExpiry = (
      await farm.db
        .selectFrom('uploads')
        .select((eb) => eb.fn.max('expires_at').as('last'))
        .executeTakeFirst()
    )?.last;
    const sweptAt = new Date(new Date(lastExpiry ?? Date.now()).getTime() + UNPROCESSED_ORIGINAL_GRACE_MS + 1000);
    let originalsSwept = 0;
    for (
      let batch = await sweepUnprocessedOriginals(farm, sweptAt);
      batch.length > 0;
      batch = await sweepUnprocessedOriginals(farm, sweptAt)
    ) {
      originalsSwept += batch.length;
    }
    const originalsLeftAfterSweep = (await neverProcessed()).length;
    if (originalsLeftAfterSweep)
      failures.push(`${originalsLeftAfterSweep} originals never processed left after the sweep`);
    // Temporary files once the farm stops cleanly (a running delivery node holds an open batch and its lock).
    await farm.launcher.stop();
    const nodeFiles = await filesUnder(join(farm.services.dir, 'nodes'));
    const spoolFiles = await filesUnder(join(farm.services.dir, 'delivery', 'spool'));
    if (workObjects.length)
      failures.push(`${workObjects.length} work objects left: ${workObjects.slice(0, 3).join(', ')}`);
    if (strayObjects.length)
      failures.push(`${strayObjects.length} objects of no video: ${strayObjects.slice(0, 3).join(', ')}`);
    if (nodeFiles.length)
      failures.push(`${nodeFiles.length} files left in node work directories: ${nodeFiles.slice(0, 3).join(', ')}`);
    if (spoolFiles.length)
      failures.push(`${spoolFiles.length} files left in delivery's spool: ${spoolFiles.slice(0, 3).join(', ')}`);

    const summary = {
      uploads,
      readyAndPlayed: videoIds.length,
      everyFrame: framesOk,
      disruptions: disrupted,
      segmentsServed: served,
      segmentRowsDistinct: Number(counted.distinct),
      segmentRowsAll: Number(counted.rows),
      storageObjects: keys.length,
      secondsToReadySlowest: Number(slowestSeconds.toFixed(1)),
      secondsToReadyUndisturbedMedian: undisturbedMedian === undefined ? null : Number(undisturbedMedian.toFixed(1)),
      undisturbedVideos: undisturbed.length,
      originalUploadsKept: uploadsLeft,
      originalsNeverProcessed,
      originalsSwept,
      originalsLeftAfterSweep,
      workObjectsLeft: workObjects.length,
      strayObjects: strayObjects.length,
      nodeWorkFilesLeft: nodeFiles.length,
      spoolFilesLeft: spoolFiles.length,
      failures,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await farm.stop();
    await rm(workDir, { recursive: true, force: true });
  }
  if (failures.length > 0) process.exit(1);
}

await main();
