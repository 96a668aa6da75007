// The storage activities over the real schema (PGlite) and an in-memory bucket with Storage's shape.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createLogger, newId, type Storage } from '@kino/infra';
import { migrateToLatest, type Db } from '@kino/database';
import { openPgliteDatabase } from '@kino/database/testing';
import {
  createClipVideo,
  createOrganization,
  createEnvironment,
  createVideo,
  markVideoDeleted,
  putAudioTrack,
} from '@kino/database/repositories';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { createStorageActivities } from './storage-work.ts';

let db: Db;
let orgId: string;
let envId: string;
const objects = new Map<string, string>();

/** The part of Storage these activities use, over `objects`. */
const storage = {
  head: (key: string) => Promise.resolve(objects.has(key) ? { size: objects.get(key)!.length } : undefined),
  put: (key: string, body: string) => {
    objects.set(key, body);
    return Promise.resolve();
  },
  delete: (key: string) => {
    objects.delete(key);
    return Promise.resolve();
  },
  deletePrefix: (prefix: string) => {
    const keys = [...objects.keys()].filter((key) => key.startsWith(prefix));
    for (const key of keys) objects.delete(key);
    return Promise.resolve(keys.length);
  },
} as unknown as Storage;

const activities = () => createStorageActivities({ db, storage, logger: createLogger('test', 'silent') });

/** Runs removeVideoContent as Temporal would; answers its result and how many heartbeats it sent. */
async function removeVideoContent(videoId: string): Promise<{ result: unknown; beats: number }> {
  const env = new MockActivityEnvironment();
  let beats = 0;
  env.on('heartbeat', () => (beats += 1));
  return { result: await env.run(activities().removeVideoContent, { videoId }), beats };
}

async function video(storagePath: string): Promise<string> {
  const created = await createVideo(db, {
    id: newId('vid'),
    orgId,
    envId,
    name: 'clip',
    storagePath,
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: defaultEncodingParameters,
  });
  objects.set(storagePath, 'source');
  objects.set(`videos/${created.id}/hls/master.m3u8`, '#EXTM3U');
  objects.set(`videos/${created.id}/hls/360p/seg-00000.m4s`, 'segment');
  return created.id;
}

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
  orgId = (await createOrganization(db, { name: 'o' })).id;
  envId = (await createEnvironment(db, { orgId, name: 'e' })).id;
});

afterAll(async () => {
  await db?.destroy();
});

test("removeVideoContent removes a deleted video's outputs and its original upload", async () => {
  const path = `uploads/${orgId}/${envId}/upl_a/clip.mp4`;
  const videoId = await video(path);
  await markVideoDeleted(db, videoId, null);
  const { result, beats } = await removeVideoContent(videoId);
  assert.deepEqual(result, { removed: 3 });
  assert.ok(beats >= 1, 'it heartbeats: an orchestrator killed midway is noticed at the heartbeat timeout');
  assert.deepEqual(
    [...objects.keys()].filter((key) => key.includes(videoId) || key === path),
    [],
  );
});

test("removeVideoContent removes a deleted video's added audio tracks' files too", async () => {
  const path = `uploads/${orgId}/${envId}/upl_d/film.mp4`;
  const dub = `uploads/${orgId}/${envId}/upl_e/es.m4a`;
  const videoId = await video(path);
  objects.set(dub, 'spanish');
  await putAudioTrack(db, { videoId, language: 'es', name: 'Spanish', isDefault: false, storagePath: dub });
  await markVideoDeleted(db, videoId, null);
  assert.deepEqual((await removeVideoContent(videoId)).result, { removed: 4 });
  assert.ok(!objects.has(dub), 'the track file is gone with the video');
});

test('removeVideoContent keeps the original when a live video was made from the same upload since', async () => {
  const path = `uploads/${orgId}/${envId}/upl_b/clip.mp4`;
  const first = await video(path);
  await markVideoDeleted(db, first, null);
  const second = await video(path);
  assert.deepEqual((await removeVideoContent(first)).result, { removed: 2 });
  assert.ok(objects.has(path), 'the live video still needs its source');
  assert.ok(objects.has(`videos/${second}/hls/master.m3u8`), "another video's outputs are not touched");
});

test("a deleted video's outputs stay while a live clip plays them, and go with the clip", async () => {
  const path = `uploads/${orgId}/${envId}/upl_c/source.mp4`;
  const sourceId = await video(path);
  await db.updateTable('videos').set({ status: 'ready', duration_seconds: 12 }).where('id', '=', sourceId).execute();
  const clipId = newId('vid');
  const clip = await createClipVideo(db, {
    id: clipId,
    sourceId,
    name: 'a clip',
    allowPublicAccess: true,
    startSeconds: 0,
    endSeconds: 6,
    mediaVideoId: sourceId,
    firstSegment: 0,
  });
  assert.ok(clip);
  objects.set(`videos/${clipId}/hls/master.m3u8`, '#EXTM3U');
  const segment = `videos/${sourceId}/hls/360p/seg-00000.m4s`;

  await markVideoDeleted(db, sourceId, null);
  assert.deepEqual((await removeVideoContent(sourceId)).result, { removed: 1 }, 'only the original upload goes');
  assert.ok(objects.has(segment), "the clip still plays the source's segment");

  await markVideoDeleted(db, clipId, null);
  assert.deepEqual(
    (await removeVideoContent(clipId)).result,
    { removed: 3 },
    "the clip's playlist and the source's two objects",
  );
  assert.deepEqual(
    [...objects.keys()].filter((key) => key.includes(sourceId) || key.includes(clipId)),
    [],
  );
});

test('a clip is not made of a video that is not ready, or is deleted', async () => {
  const sourceId = await video(`uploads/${orgId}/${envId}/upl_d/source.mp4`);
  const input = {
    id: newId('vid'),
    sourceId,
    name: 'c',
    allowPublicAccess: true,
    startSeconds: 0,
    endSeconds: 1,
    mediaVideoId: sourceId,
    firstSegment: 0,
  };
  assert.equal(await createClipVideo(db, input), undefined, 'transcoding');
  await db.updateTable('videos').set({ status: 'ready' }).where('id', '=', sourceId).execute();
  await markVideoDeleted(db, sourceId, null);
  assert.equal(await createClipVideo(db, input), undefined, 'deleted');
});
