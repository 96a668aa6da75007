import { test } from 'vitest';
import assert from 'node:assert/strict';
import { BEACONS_PATH, embedPaths, playerAssetPaths } from '@kino/proto/contract';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DeliveryError } from '../errors.ts';
import { parseDeliveryPath, type DeliveryRoute } from '../paths.ts';
import type { RouteDeps, RouteHandler } from './context.ts';
import { fileBodies } from './playback.ts';
import { routeHandlers } from './table.ts';

/** A path of every kind of route parseDeliveryPath makes (paths.test.ts proves the parsing itself). */
const pathOfEachKind = [
  '/v1/public/org_1/env_1/vid_1/master.m3u8',
  '/v1/share/shr_1/master.m3u8',
  '/v1/share/shr_1',
  playerAssetPaths.player,
  '/embed/vid_1',
  embedPaths.oembed,
  '/t/vid_1/640x360.jpg',
  '/t/vid_1/8x8.jpg',
  '/health',
  BEACONS_PATH,
];

/** A file of every type of resource a family serves, on the direct family's paths. */
const fileOfEachType = [
  'master.m3u8',
  '720p.m3u8',
  '720p/init.mp4',
  '720p/seg-00003.m4s',
  '720p/part-00012.m4s',
  '720p.mp4',
  'audio.m4a',
  'storyboard.vtt',
  'storyboard-0.jpg',
  'subtitles-en.m3u8',
  'subtitles-en/seg-00000.vtt',
  'subtitles-en.vtt',
  'animated.webp',
];

test('every kind of route has exactly one handler, and the table has none for a kind that does not exist', () => {
  const kinds = pathOfEachKind.map((path) => parseDeliveryPath(path)?.kind);
  assert.equal(new Set(kinds).size, kinds.length, `one path per kind: ${kinds.join(', ')}`);
  assert.deepEqual([...kinds].sort(), Object.keys(routeHandlers).sort());
  for (const kind of Object.keys(routeHandlers) as (keyof typeof routeHandlers)[])
    assert.equal(typeof routeHandlers[kind], 'function', kind);
});

test('every type of file a family serves has exactly one body maker', () => {
  const types = fileOfEachType.map((name) => {
    const route = parseDeliveryPath(`/vid_1/${name}`);
    if (route?.kind !== 'playback') assert.fail(`${name}: ${route?.kind}`);
    return route.resource.type;
  });
  assert.equal(new Set(types).size, types.length, `one file per type: ${types.join(', ')}`);
  assert.deepEqual([...types].sort(), Object.keys(fileBodies).sort());
  for (const type of Object.keys(fileBodies) as (keyof typeof fileBodies)[])
    assert.equal(typeof fileBodies[type], 'function', type);
});

/** Whether each kind of route serves a video's files (then its query is the playback parameters alone). */
const servesFiles: Record<DeliveryRoute['kind'], boolean> = {
  playback: true,
  share: true,
  thumbnail: true,
  share_page: false,
  embed_page: false,
  player_asset: false,
  oembed: false,
  invalid_thumbnail_size: false,
  health: false,
  beacons: false,
};

test('every kind of route that serves files refuses an unknown query parameter before it reads anything (its token among them)', async () => {
  assert.deepEqual(
    Object.keys(servesFiles).sort(),
    Object.keys(routeHandlers).sort(),
    'every kind is said to serve files or not',
  );
  // Dependencies that fail the test when a handler touches them: the query comes first.
  const untouchable = new Proxy({} as RouteDeps, {
    get: (_target, name) => assert.fail(`deps.${String(name)} read before the query was checked`),
  });
  const exchange = {
    req: {} as IncomingMessage,
    res: {} as ServerResponse,
    params: new URLSearchParams('tokne=abc'),
  };
  const checked = pathOfEachKind.map((path) => parseDeliveryPath(path)!).filter((route) => servesFiles[route.kind]);
  assert.deepEqual(checked.map((route) => route.kind).sort(), ['playback', 'share', 'thumbnail']);
  for (const route of checked) {
    const handler = routeHandlers[route.kind] as RouteHandler<DeliveryRoute['kind']>;
    await assert.rejects(
      handler(untouchable, exchange, route),
      (error: unknown) =>
        error instanceof DeliveryError && error.status === 400 && error.code === 'invalid_playback_parameters',
      route.kind,
    );
  }
});
