import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { DeliveryError } from '../errors.ts';
import type { PlayableVideo } from '../video-catalog.ts';
import type { Resource } from '../paths.ts';
import { openVideo } from './context.ts';

const videoOf = (allowPublicAccess: boolean): PlayableVideo => ({
  id: 'vid_1',
  orgId: 'org_1',
  envId: 'env_1',
  name: 'clip',
  width: null,
  height: null,
  allowPublicAccess,
  thumbnailKey: null,
  storyboardKey: null,
  clipMedia: null,
  segmentsPending: false,
  masterKey: null,
  live: false,
  audioKey: null,
  renditions: new Map(),
  addedAudio: [],
  captions: new Map(),
});

/**
 * A catalog of one video (`reads` records how each lookup went: the entry, or the database now) and
 * a token verifier that lets `good` in and records every check.
 */
function depsOf(video: PlayableVideo | undefined) {
  const checks: { token: string | null; subject: string; what: string | undefined; origin: string | undefined }[] = [];
  const reads: ('get' | 'fresh')[] = [];
  // A live stream's id reads as its broadcast's video, as readPlayableVideo resolves it.
  const lookup = (read: 'get' | 'fresh') => async (id: string) => (
    reads.push(read),
    video?.id === id || id === 'ls_1' ? video : undefined
  );
  return {
    checks,
    reads,
    catalog: { get: lookup('get'), fresh: lookup('fresh') },
    tokens: {
      async authorize(token: string | null, subject: string, viewer: { origin?: string }, what?: 'playback' | 'image') {
        checks.push({ token, subject, what, origin: viewer.origin });
        if (token !== 'good') throw new DeliveryError(401, 'token_required', 'no');
        return { sub: 'vid_1', exp: 0 } as never;
      },
    },
  };
}

const req = { headers: { origin: 'https://site.example' } } as unknown as IncomingMessage;
const query = (token?: string) => new URLSearchParams(token ? { token } : {});
const publicPath = (orgId = 'org_1') => ({
  kind: 'playback' as const,
  family: 'public' as const,
  orgId,
  envId: 'env_1',
  videoId: 'vid_1',
  resource: { type: 'master' as const },
});
const privatePath = {
  kind: 'playback' as const,
  family: 'private' as const,
  videoId: 'vid_1',
  resource: { type: 'master' as const },
};
const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'opened',
    (error: DeliveryError) => `${error.status} ${error.code}`,
  );

test('openVideo: a public video on a public path opens with no token; on another org or env, or absent, it is not found', async () => {
  const deps = depsOf(videoOf(true));
  assert.deepEqual(await openVideo(deps, req, query('ignored'), publicPath()), {
    video: videoOf(true),
    access: 'public',
    token: null,
  });
  assert.deepEqual(deps.checks, [], 'no token asked for');
  assert.equal(await statusOf(openVideo(deps, req, query(), publicPath('org_2'))), '404 video_not_found');
  assert.equal(await statusOf(openVideo(depsOf(undefined), req, query(), publicPath())), '404 video_not_found');
});

test('openVideo: a private path always needs a token, and a private video needs one on every path', async () => {
  const open = depsOf(videoOf(true));
  assert.equal(await statusOf(openVideo(open, req, query(), privatePath)), '401 token_required');
  assert.deepEqual(await openVideo(open, req, query('good'), privatePath), {
    video: videoOf(true),
    access: 'private',
    token: 'good',
  });
  const closed = depsOf(videoOf(false));
  assert.equal(await statusOf(openVideo(closed, req, query(), publicPath())), '401 token_required');
  assert.equal((await openVideo(closed, req, query('good'), publicPath())).access, 'private');
  assert.deepEqual(
    closed.checks.map((c) => c.origin),
    ['https://site.example', 'https://site.example'],
    "the viewer's origin goes with the token",
  );
});

test("openVideo: a thumbnail's token is checked for images, a file's for playback", async () => {
  const deps = depsOf(videoOf(false));
  await openVideo(deps, req, query('good'), {
    kind: 'thumbnail',
    videoId: 'vid_1',
    width: 640,
    height: 360,
    format: 'jpg',
  });
  await openVideo(deps, req, query('good'), privatePath);
  assert.deepEqual(
    deps.checks.map((c) => c.what),
    ['image', 'playback'],
  );
});

test('openVideo reads the files that list caption tracks from the database now, every other file from the catalog', async () => {
  const deps = depsOf(videoOf(true));
  const open = (resource: Resource) => openVideo(deps, req, query(), { ...publicPath(), resource });
  for (const resource of [
    { type: 'master' },
    { type: 'subtitles_playlist', language: 'en' },
    { type: 'captions_file', language: 'en' },
  ] as const)
    await open(resource);
  assert.deepEqual(deps.reads, ['fresh', 'fresh', 'fresh']);
  deps.reads.length = 0;
  for (const resource of [
    { type: 'rendition', quality: '360p' },
    { type: 'segment', quality: '360p', index: 0 },
    { type: 'subtitles_segment', language: 'en', index: 0 },
  ] as const)
    await open(resource);
  await openVideo(deps, req, query(), { kind: 'thumbnail', videoId: 'vid_1', width: 320, height: 180, format: 'jpg' });
  assert.deepEqual(deps.reads, ['get', 'get', 'get', 'get']);
});

test("openVideo: a live stream's path checks its token against the stream, not the broadcast's video", async () => {
  const deps = depsOf(videoOf(false));
  const onStream = { ...privatePath, videoId: 'ls_1', resource: { type: 'rendition' as const, quality: '180p' } };
  assert.equal((await openVideo(deps, req, query('good'), onStream)).video.id, 'vid_1');
  await openVideo(deps, req, query('good'), privatePath);
  assert.deepEqual(
    deps.checks.map((c) => c.subject),
    ['ls_1', 'vid_1'],
  );
});
