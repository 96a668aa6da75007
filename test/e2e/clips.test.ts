// Clips end to end on the real farm (API, Temporal, orchestrator, an encode node, delivery, chDB): a
// segment-accurate clip of a transcoded video is ready when the call answers, plays frame for frame
// the source's frames of the segments it covers, has its served segments logged against its own id,
// stays playable after its source is deleted (the source's segments stay in storage), and takes the
// source's objects with it when it is deleted in turn.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import { objectKeys } from '@kino/proto/contract';
import { makeClip } from '@kino/test/support/media';
import { startFarm, type Farm } from '../farm/farm.ts';

let farm: Farm;
let workDir: string;
let source: Buffer;
const fps = 25;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-clips-'));
  let sourcePath: string;
  [farm, sourcePath] = await Promise.all([
    startFarm({ playback: true }),
    // 14 s: segments of 6, 6 and 2 s.
    makeClip({ seconds: 14, width: 640, height: 360, fps, audio: true, path: join(workDir, 'source.mp4') }),
  ]);
  source = await readFile(sourcePath);
  await farm.startNode('a', { slots: 2 });
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

/** The MD5 of every decoded frame of the first video stream, in order (ffmpeg's framemd5); throws on any decoding error. */
async function frameHashes(input: string): Promise<string[]> {
  const { stdout, stderr } = await promisify(execFile)(
    'ffmpeg',
    ['-hide_banner', '-nostats', '-v', 'error', '-xerror', '-i', input, '-map', '0:v:0', '-f', 'framemd5', '-'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  if (stderr.trim()) throw new Error(`ffmpeg reported errors decoding ${input}:\n${stderr}`);
  return stdout
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split(',').pop()!.trim());
}

async function servedRows(videoId: string): Promise<Array<{ segment_index: number }>> {
  return farm.clickhouse!.query<{ segment_index: number }>(`SELECT segment_index FROM segment_deliveries FINAL WHERE video_id = '${videoId}'`);
}

test('a segment-accurate clip is ready at once, plays its segments frame for frame, is its own video in analytics, and outlives its source', async () => {
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, { filename: 'source.mp4', fileSize: source.length, contentType: 'video/mp4' });
  await farm.kino.uploads.putFile(ticket, source, 'video/mp4');
  const { videoID: sourceId } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess: true,
    compressionRatio: 'ultrafast',
  });
  await farm.waitForStatus(sourceId, 'ready', 180_000);
  const deliveryUrl = farm.deliveryUrl!;
  const sourceHashes = await frameHashes(`${deliveryUrl}/${sourceId}/master.m3u8`);
  assert.equal(sourceHashes.length, 14 * fps);

  // 7–11 s lies in the second segment (6–12 s): the clip is that segment, ready when the call answers.
  const { videoID: clipId } = await farm.kino.videos.createClip(farm.orgId, sourceId, { startTime: 7, endTime: 11 });
  const clip = await farm.kino.videos.get(farm.orgId, clipId);
  assert.deepEqual(clip.status, { ready: true, transcoding: false, failed: false }, 'ready when the call answers, with nothing encoded');
  assert.deepEqual(clip.clipOf, { videoId: sourceId, startTime: 7, endTime: 11 });
  assert.equal(clip.durationSeconds, 6);

  const clipMaster = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${clipId}/master.m3u8`;
  const expected = sourceHashes.slice(6 * fps, 12 * fps);
  assert.deepEqual(await frameHashes(clipMaster), expected, "the clip's frames are the source's from 6 s to 12 s");

  // Its segments are logged against the clip, under its own numbering (one segment: index 0).
  const rows = await waitFor('segment rows for the clip', async () => {
    const served = await servedRows(clipId);
    return served.length >= 1 ? served : undefined;
  });
  assert.deepEqual([...new Set(rows.map((r) => Number(r.segment_index)))], [0]);

  // The source is deleted: its clean-up keeps the segments the clip plays (its original upload goes).
  await farm.kino.videos.delete(farm.orgId, sourceId);
  await waitFor('the source\'s clean-up', async () => ((await farm.storage.head(ticket.bucketPath)) ? undefined : true), { timeoutMs: 60_000 });
  assert.ok(await farm.storage.head(objectKeys.segment(sourceId, 360, 1)), "the clip's segment is still in storage");
  // Delivery knows within its metadata TTL that the source is gone.
  await waitFor('the source to stop playing', async () => ((await fetch(`${deliveryUrl}/${sourceId}/master.m3u8`)).status === 404 ? true : undefined));
  assert.deepEqual(await frameHashes(`${deliveryUrl}/${clipId}/master.m3u8`), expected, 'the clip still plays every frame');

  // The clip is deleted: the source's objects go with it.
  await farm.kino.videos.delete(farm.orgId, clipId);
  await waitFor(
    "the source's objects removed with its last clip",
    async () => ((await farm.storage.list(objectKeys.videoPrefix(sourceId))).length === 0 ? true : undefined),
    { timeoutMs: 60_000 },
  );
  assert.deepEqual(await farm.storage.list(objectKeys.videoPrefix(clipId)), []);
});
