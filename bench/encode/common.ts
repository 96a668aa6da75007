// What both encode benchmarks (run.ts, node-loss.ts) do the same way: the source clip, submitting
// it through the SDK as a user does, waiting for `ready`, and the median.
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getVideo } from '@kino/database/repositories';
import type { ProcessVideoResult } from '@kino/orchestrator';
import { workflowIds, type CompressionRatio, type VideoQuality } from '@kino/proto/contract';
import { makeClip } from '@kino/test/support/media';
import type { Farm } from '../../test/farm/farm.ts';

export const log = (line: string) => process.stderr.write(`${line}\n`);
export const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The benchmark source, `seconds` of 1080p30 with audio, made once and kept in the temp directory.
 * Made under another name first: a run cut short never leaves a short source behind.
 */
export async function benchSource(seconds: number): Promise<string> {
  const path = join(tmpdir(), `kino-bench-source-${seconds}s-1080p30.mp4`);
  if (!existsSync(path)) {
    log(`making the source: ${seconds} s, 1920x1080, 30 fps, with audio -> ${path}`);
    await makeClip({ seconds, width: 1920, height: 1080, fps: 30, audio: true, path: `${path}.partial.mp4` });
    await rename(`${path}.partial.mp4`, path);
  }
  return path;
}

/** Upload URL, PUT, process on `videoQuality` (`high` unless told): the video id and when the process call was made. */
export async function submitBenchVideo(
  farm: Farm,
  /** The bytes, or a file's Blob (openAsBlob: streamed, for sources over the 2 GiB a Buffer holds). */
  source: Uint8Array | Blob,
  compressionRatio: CompressionRatio,
  videoQuality: VideoQuality = 'high',
): Promise<{ videoId: string; calledAt: number }> {
  const fileSize = source instanceof Blob ? source.size : source.byteLength;
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: 'bench.mp4',
    fileSize,
    contentType: 'video/mp4',
  });
  await farm.kino.uploads.putFile(ticket, source, 'video/mp4');
  const calledAt = Date.now();
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality,
    allowPublicAccess: true,
    videoName: 'bench',
    compressionRatio,
  });
  return { videoId: videoID, calledAt };
}

/** Waits for the video's workflow; it must end `ready`. Returns the result and when it became ready. */
export async function waitForReady(
  farm: Farm,
  videoId: string,
): Promise<{ result: Extract<ProcessVideoResult, { status: 'ready' }>; readyAt: number }> {
  const result = (await farm.temporal.workflow
    .getHandle(workflowIds.processVideo(videoId))
    .result()) as ProcessVideoResult;
  if (result.status !== 'ready') throw new Error(`the run ended ${result.status}: ${JSON.stringify(result)}`);
  return { result, readyAt: (await getVideo(farm.db, videoId))!.ready_at!.getTime() };
}
