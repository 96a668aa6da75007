// Listing, details, changes (PATCH), retry and delete of videos, environment settings and webhook registration, on real PostgreSQL and a
// real Temporal server. Videos are seeded through the repositories (the farm is another test's job).
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { Client, Connection } from '@temporalio/client';
import { newId } from '@kino/infra';
import { freePort } from '@kino/dev';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import {
  createVideo,
  environmentJustInTime,
  getEnvironment,
  getVideo,
  listRenditions,
  markVideoFailed,
  replaceRenditions,
  type NewRendition,
} from '@kino/database/repositories';
import type { EncodingParameters, VideoStatus } from '@kino/database';
import { defaultEncodingParameters } from '@kino/proto/contract';
import {
  assertErrorEnvelope,
  seedTenancy,
  startApiHarness,
  type ApiHarness,
  type Json,
  type Tenancy,
  apiRequest,
} from './harness.ts';

let services: TestServices;
let api: ApiHarness;
let t: Tenancy;

beforeAll(async () => {
  services = await startTestServices({ postgres: true, temporal: true });
  api = await startApiHarness(services);
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

interface Seed {
  name: string;
  envId?: string;
  status?: VideoStatus;
  durationSeconds?: number | null;
  createdAt?: string;
  width?: number;
  height?: number;
  failureReason?: string;
  deleted?: boolean;
  parameters?: Partial<EncodingParameters>;
}

async function seedVideo(seed: Seed): Promise<string> {
  const id = newId('vid');
  const envId = seed.envId ?? t.envA.id;
  await createVideo(api.db, {
    id,
    orgId: t.org.id,
    envId,
    name: seed.name,
    storagePath: `uploads/${t.org.id}/${envId}/${newId('upl')}/source.mp4`,
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: { ...defaultEncodingParameters, ...seed.parameters },
  });
  await api.db
    .updateTable('videos')
    .set({
      status: seed.status ?? 'ready',
      duration_seconds: seed.durationSeconds === undefined ? 10 : seed.durationSeconds,
      source_width: seed.width ?? 1280,
      source_height: seed.height ?? 720,
      failure_reason: seed.failureReason ?? null,
      // A ready video made by the workflow has its default thumbnail.
      thumbnail_key: (seed.status ?? 'ready') === 'ready' ? `videos/${id}/thumbs/default.jpg` : null,
      ...(seed.createdAt ? { created_at: new Date(seed.createdAt) } : {}),
      ...(seed.deleted ? { deleted_at: sql<Date>`now()` } : {}),
    })
    .where('id', '=', id)
    .execute();
  return id;
}

function rendition(videoId: string, shortEdge: number, kbps: number): NewRendition {
  return {
    video_id: videoId,
    key: `${shortEdge}p`,
    width: Math.round((shortEdge * 16) / 9),
    height: shortEdge,
    short_edge_pixels: shortEdge,
    short_edge_is_width: false,
    video_bitrate_kbps: kbps,
    audio_bitrate_kbps: 128,
    audio_format: 'aac',
    frame_rate: 30,
    pixel_format: 'yuv420p',
    rate_control_mode: 'variableBitrate',
    two_pass: false,
    compression_ratio: 'veryfast',
    codecs: 'avc1.64001f,mp4a.40.2',
    bandwidth: kbps * 1100,
    segment_count: 10,
  };
}

/** A call to the API with the full key unless another is named. */
const request = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  options: { key?: string; body?: unknown } = {},
) => apiRequest(api.app, method, url, { key: t.keys.full, ...options });

describe('listing videos', () => {
  // A separate environment so other tests' videos do not count.
  let envId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const env = await api.db
      .insertInto('environments')
      .values({ id: newId('env'), org_id: t.org.id, name: 'listing' })
      .returningAll()
      .executeTakeFirstOrThrow();
    envId = env.id;
    const seeds: Seed[] = [
      { name: 'Summer Holiday', durationSeconds: 125.4, createdAt: '2024-01-10T23:59:59Z' },
      {
        name: 'alpha launch',
        durationSeconds: 30,
        createdAt: '2024-01-11T00:00:00Z',
        status: 'failed',
        failureReason: 'unreadable',
      },
      { name: 'Beta demo', durationSeconds: null, createdAt: '2024-01-12T12:00:00Z', status: 'transcoding' },
      { name: '100% pure', durationSeconds: 5, createdAt: '2024-01-13T08:00:00Z' },
      { name: 'snake_case clip', durationSeconds: 600, createdAt: '2024-01-14T08:00:00Z' },
      { name: 'winter holiday', durationSeconds: 61, createdAt: '2024-01-15T08:00:00Z' },
      { name: 'Gone', durationSeconds: 1, createdAt: '2024-01-16T08:00:00Z', deleted: true },
    ];
    for (const seed of seeds) ids[seed.name] = await seedVideo({ ...seed, envId });
  });

  const list = (query = '') => request('GET', `/${t.org.id}/environments/${envId}/videos${query}`);
  const names = (body: Json) => body.body.videos.map((v: Json) => v.name);

  it('pages with the spec pagination object, newest first by default, deleted videos hidden', async () => {
    const first = await list('?pageSize=4');
    assert.equal(first.status, 200);
    assert.deepEqual(names(first.body), ['winter holiday', 'snake_case clip', '100% pure', 'Beta demo']);
    assert.deepEqual(first.body.body.pagination, {
      total: 6,
      page: 1,
      pageSize: 4,
      totalPages: 2,
      hasNext: true,
      hasPrevious: false,
    });
    const second = await list('?pageSize=4&page=2');
    assert.deepEqual(names(second.body), ['alpha launch', 'Summer Holiday']);
    assert.deepEqual(second.body.body.pagination, {
      total: 6,
      page: 2,
      pageSize: 4,
      totalPages: 2,
      hasNext: false,
      hasPrevious: true,
    });
    const beyond = await list('?pageSize=4&page=3');
    assert.deepEqual(beyond.body.body.videos, []);
    assert.equal((await list()).body.body.pagination.pageSize, 20);
  });

  it('sorts by created_at, name (case-insensitive), duration (unknown last) and status, both ways', async () => {
    assert.deepEqual(names((await list('?sortBy=created_at&sortDir=asc')).body).slice(0, 2), [
      'Summer Holiday',
      'alpha launch',
    ]);
    assert.deepEqual(names((await list('?sortBy=name&sortDir=asc')).body), [
      '100% pure',
      'alpha launch',
      'Beta demo',
      'snake_case clip',
      'Summer Holiday',
      'winter holiday',
    ]);
    assert.deepEqual(names((await list('?sortBy=duration&sortDir=asc')).body), [
      '100% pure',
      'alpha launch',
      'winter holiday',
      'Summer Holiday',
      'snake_case clip',
      'Beta demo',
    ]);
    assert.deepEqual(names((await list('?sortBy=duration&sortDir=desc')).body)[0], 'snake_case clip');
    const byStatus = (await list('?sortBy=status&sortDir=asc')).body.body.videos.map((v: Json) => v.status);
    assert.deepEqual(byStatus, ['failed', 'ready', 'ready', 'ready', 'ready', 'transcoding']);
  });

  it('filters by status', async () => {
    assert.deepEqual(names((await list('?status=failed')).body), ['alpha launch']);
    assert.deepEqual(names((await list('?status=transcoding')).body), ['Beta demo']);
    assert.equal((await list('?status=ready')).body.body.pagination.total, 4);
    const bad = await list('?status=deleted');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].location, 'query.status');
  });

  it('searches names case-insensitively, with % and _ matching themselves', async () => {
    assert.deepEqual(names((await list('?search=HOLIDAY&sortDir=asc')).body), ['Summer Holiday', 'winter holiday']);
    assert.deepEqual(names((await list('?search=%25')).body), ['100% pure']);
    assert.deepEqual(names((await list('?search=_')).body), ['snake_case clip']);
    assert.deepEqual(names((await list('?search=nothing-like-this')).body), []);
    assert.equal((await list('?search=')).body.body.pagination.total, 6);
  });

  it('filters by creation date, from and to inclusive (UTC days)', async () => {
    assert.deepEqual(names((await list('?from=2024-01-11&to=2024-01-11')).body), ['alpha launch']);
    assert.deepEqual(names((await list('?to=2024-01-10')).body), ['Summer Holiday']);
    assert.deepEqual(names((await list('?from=2024-01-14&sortDir=asc')).body), ['snake_case clip', 'winter holiday']);
    const impossible = await list('?from=2024-02-30');
    assert.equal(impossible.status, 400);
    assert.equal(impossible.body.errors[0].location, 'query.from');
    const badFormat = await list('?to=01/02/2024');
    assert.equal(badFormat.status, 400);
    assert.equal(badFormat.body.errors[0].location, 'query.to');
    const reversed = await list('?from=2024-01-12&to=2024-01-11');
    assert.equal(reversed.status, 400);
    assertErrorEnvelope(reversed.body, 400, 'invalid_date_range', assert);
  });

  it('returns list items with exactly the spec fields, status as a string', async () => {
    const video = (await list('?search=summer')).body.body.videos[0];
    assert.deepEqual(Object.keys(video).sort(), [
      'allowPublicAccess',
      'createdAt',
      'duration',
      'durationSeconds',
      'id',
      'name',
      'served',
      'status',
      'thumbnailUrl',
      'videoQuality',
    ]);
    assert.equal(video.id, ids['Summer Holiday']);
    assert.equal(video.duration, '2:05');
    assert.equal(video.durationSeconds, 125.4);
    assert.equal(video.createdAt, '2024-01-10T23:59:59.000Z');
    assert.equal(video.status, 'ready');
    assert.equal(video.served, '0 views');
    assert.equal(video.thumbnailUrl, `http://delivery.test/t/${video.id}/640x360.jpg`);
    assert.equal(video.allowPublicAccess, true);
    assert.equal(video.videoQuality, 'standard');
  });

  it('lists an organization across environments, each item naming its envId', async () => {
    const r = await request('GET', `/${t.org.id}/videos?pageSize=100`);
    assert.equal(r.status, 200);
    const envIds = new Set(r.body.body.videos.map((v: Json) => v.envId));
    assert.ok(envIds.has(envId));
    for (const v of r.body.body.videos) assert.ok(typeof v.envId === 'string' && v.status && v.duration !== undefined);
    assert.ok(!r.body.body.videos.some((v: Json) => v.id === ids.Gone));
    const filtered = await request('GET', `/${t.org.id}/videos?search=snake`);
    assert.deepEqual(
      filtered.body.body.videos.map((v: Json) => [v.name, v.envId]),
      [['snake_case clip', envId]],
    );
    assert.equal((await request('GET', `/${t.org.id}/videos?pageSize=101`)).body.code, 'invalid_page_size');
  });
});

describe('video details', () => {
  it('return every field of the spec, the status object and one encoding per rendition', async () => {
    const id = await seedVideo({
      name: 'Ready one',
      durationSeconds: 60,
      parameters: { maxEdgeLength: 1080, audioCodec: 'eac3' },
    });
    await replaceRenditions(api.db, id, [rendition(id, 720, 2500), rendition(id, 360, 500), rendition(id, 480, 1000)]);
    const r = await request('GET', `/${t.org.id}/videos/${id}/details`);
    assert.equal(r.status, 200);
    const body = r.body.body;
    assert.equal(body.id, id);
    assert.equal(body.publicID, id);
    assert.equal(body.envId, t.envA.id);
    assert.equal(body.name, 'Ready one');
    assert.deepEqual(body.status, { ready: true, transcoding: false, failed: false });
    assert.equal(body.duration, '1:00');
    assert.equal(body.durationSeconds, 60);
    assert.equal(body.served, '0 views');
    assert.equal(body.thumbnailUrl, `http://delivery.test/t/${id}/640x360.jpg`);
    assert.equal(body.allowPublicAccess, true);
    assert.equal(body.videoQuality, 'standard');
    assert.equal(body.maxEdgeLength, 1080);
    assert.equal(body.maxFrameRate, -1);
    assert.equal(body.pixelFormat, 'yuv420p');
    assert.equal(body.rateControlMode, 'variableBitrate');
    assert.equal(body.twoPassVBREncoding, false);
    assert.equal(body.compressionRatio, 'veryfast');
    assert.equal(body.audioCodec, 'eac3');
    assert.equal(body.failureReason, undefined);
    assert.deepEqual(
      body.encodings.map((e: Json) => e.key),
      ['360p', '480p', '720p'],
    );
    assert.deepEqual(body.encodings[2], {
      key: '720p',
      shortEdgePixels: 720,
      shortEdgeIsWidth: false,
      videoStreamBitrate: 2500,
      audioStreamBitrate: 128,
      audioFormat: 'aac',
      maxFrameRate: 30,
      pixelFormat: 'yuv420p',
      rateControlMode: 'variableBitrate',
      twoPassVBREncoding: false,
      compressionRatio: 'veryfast',
      // No vmaf nor averageBitrate: this rendition was not measured (as those made before they were kept).
      videoCodec: 'h264',
    });
    assert.equal(body.encodingMode, 'fixed');
    assert.deepEqual(body.additionalCodecs, []);
  });

  it('list the H.264 ladder first, then the added codecs, each rendition with its codec, VMAF and measured average', async () => {
    const id = await seedVideo({
      name: 'Codecs',
      parameters: { encodingMode: 'contentAware', additionalCodecs: ['av1', 'hevc'] },
    });
    const codec = (
      shortEdge: number,
      kbps: number,
      videoCodec: 'hevc' | 'av1',
      measured: Partial<NewRendition>,
    ): NewRendition => ({
      ...rendition(id, shortEdge, kbps),
      key: `${shortEdge}p-${videoCodec}`,
      video_codec: videoCodec,
      ...measured,
    });
    await replaceRenditions(api.db, id, [
      codec(720, 2500, 'av1', { vmaf: 94.876, average_bandwidth: 1_234_567 }),
      { ...rendition(id, 720, 2500), vmaf: 95.123, average_bandwidth: 2_100_499 },
      codec(360, 500, 'hevc', {}),
      codec(360, 500, 'av1', { vmaf: 90, average_bandwidth: 300_500 }),
      rendition(id, 360, 500),
    ]);
    const body = (await request('GET', `/${t.org.id}/videos/${id}/details`)).body.body;
    assert.equal(body.encodingMode, 'contentAware');
    assert.deepEqual(body.additionalCodecs, ['av1', 'hevc']);
    assert.deepEqual(
      body.encodings.map((e: Json) => [e.key, e.videoCodec, e.vmaf, e.averageBitrate]),
      [
        ['360p', 'h264', undefined, undefined],
        ['720p', 'h264', 95.12, 2100],
        ['360p-hevc', 'hevc', undefined, undefined],
        ['360p-av1', 'av1', 90, 301],
        ['720p-av1', 'av1', 94.88, 1235],
      ],
    );
    // Unmeasured fields are left out rather than null.
    assert.ok(!('vmaf' in body.encodings[0]) && !('averageBitrate' in body.encodings[0]));
  });

  it('answer fixed and no added codecs for a video processed before those options existed', async () => {
    const id = await seedVideo({ name: 'From before' });
    const { encodingMode: _mode, additionalCodecs: _codecs, ...before } = defaultEncodingParameters;
    await api.db
      .updateTable('videos')
      .set({ parameters: JSON.stringify(before) })
      .where('id', '=', id)
      .execute();
    assert.equal((await getVideo(api.db, id))?.parameters.encodingMode, undefined);
    const body = (await request('GET', `/${t.org.id}/videos/${id}/details`)).body.body;
    assert.equal(body.encodingMode, 'fixed');
    assert.deepEqual(body.additionalCodecs, []);
  });

  it('estimate views from segments served, written like "1.2K views"', async () => {
    const id = await seedVideo({ name: 'Popular', durationSeconds: 60 });
    // 60 s is 10 segments per view: 12,000 segments are 1,200 views.
    const app = await api.buildAnother({
      servedSegments: {
        segmentsServed: async (_orgId, videoIds) => new Map(videoIds.map((v) => [v, v === id ? 12_000 : 0])),
      },
    });
    const details = await app.inject({
      url: `/v1/api/${t.org.id}/videos/${id}/details`,
      headers: { 'x-api-key': t.keys.full },
    });
    assert.equal(details.json<Json>().body.served, '1.2K views');
    const listed = await app.inject({
      url: `/v1/api/${t.org.id}/videos?search=Popular`,
      headers: { 'x-api-key': t.keys.full },
    });
    assert.equal(listed.json<Json>().body.videos[0].served, '1.2K views');
  });

  it('keep the aspect ratio of portrait sources in the thumbnail URL and say why a video failed', async () => {
    const portrait = await seedVideo({ name: 'Portrait', width: 1080, height: 1920 });
    assert.equal(
      (await request('GET', `/${t.org.id}/videos/${portrait}/details`)).body.body.thumbnailUrl,
      `http://delivery.test/t/${portrait}/360x640.jpg`,
    );
    const failed = await seedVideo({ name: 'Broken', status: 'failed', failureReason: 'the file is not a video' });
    const body = (await request('GET', `/${t.org.id}/videos/${failed}/details`)).body.body;
    assert.deepEqual(body.status, { ready: false, transcoding: false, failed: true });
    assert.equal(body.failureReason, 'the file is not a video');
    assert.equal(body.thumbnailUrl, null, 'no thumbnail: null, not a URL that answers 404');
  });

  it('give a private video a thumbnailUrl with a short-lived token that opens its images only; null before it has one', async () => {
    const id = await seedVideo({ name: 'Private one' });
    await api.db.updateTable('videos').set({ allow_public_access: false }).where('id', '=', id).execute();
    const details = (await request('GET', `/${t.org.id}/videos/${id}/details`)).body.body;
    const url = new URL(details.thumbnailUrl);
    assert.equal(`${url.origin}${url.pathname}`, `http://delivery.test/t/${id}/640x360.jpg`);
    const [, payload] = url.searchParams.get('token')!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    assert.deepEqual(
      { sub: claims.sub, aud: claims.aud, scope: claims.scope, lifetime: claims.exp - claims.iat },
      { sub: id, aud: id, scope: 'images', lifetime: 3600 },
    );
    const listed = (await request('GET', `/${t.org.id}/videos?search=Private%20one`)).body.body.videos[0];
    assert.match(listed.thumbnailUrl, new RegExp(`^http://delivery\\.test/t/${id}/640x360\\.jpg\\?token=`));

    const transcoding = await seedVideo({ name: 'Still transcoding', status: 'transcoding' });
    assert.equal((await request('GET', `/${t.org.id}/videos/${transcoding}/details`)).body.body.thumbnailUrl, null);
  });

  it('answer 404 video_not_found for unknown and deleted videos', async () => {
    const deleted = await seedVideo({ name: 'Deleted', deleted: true });
    for (const id of ['vid_doesnotexist0000', deleted]) {
      const r = await request('GET', `/${t.org.id}/videos/${id}/details`);
      assert.equal(r.status, 404);
      assertErrorEnvelope(r.body, 404, 'video_not_found', assert);
    }
  });
});

describe('changing a video (PATCH)', () => {
  const patch = (id: string, body: unknown, key?: string) =>
    request('PATCH', `/${t.org.id}/videos/${id}`, { body, ...(key ? { key } : {}) });

  it('renames it, describes it, makes it private and sets its metadata; answers the details after the change, which details and lists show', async () => {
    const id = await seedVideo({ name: 'Before the change' });
    const r = await patch(id, {
      videoName: 'After the change',
      description: 'A description',
      allowPublicAccess: false,
      metadata: { externalId: `ext-${id}`, creatorId: 'user-42', passthrough: '{"any":"thing"}' },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const expected = { externalId: `ext-${id}`, creatorId: 'user-42', passthrough: '{"any":"thing"}' };
    assert.equal(r.body.body.name, 'After the change');
    assert.equal(r.body.body.description, 'A description');
    assert.equal(r.body.body.allowPublicAccess, false);
    assert.deepEqual(r.body.body.metadata, expected);
    assert.equal(r.body.body.publicID, id);
    assert.equal(r.body.body.encodings.length, 0);

    // Private now: its thumbnail URL carries a token (signed afresh per answer, so compared without it).
    assert.match(r.body.body.thumbnailUrl, /\?token=/);
    const withoutToken = (body: Json) => ({ ...body, thumbnailUrl: body.thumbnailUrl.split('?')[0] });
    const details = (await request('GET', `/${t.org.id}/videos/${id}/details`)).body.body;
    assert.deepEqual(withoutToken(details), withoutToken(r.body.body), 'the details say what PATCH answered');
    // The new name is searchable at once (video_search follows by trigger), and the filter finds it by its external id.
    const found = (
      await request(
        'GET',
        `/${t.org.id}/environments/${t.envA.id}/videos?search=${encodeURIComponent('after the change')}`,
      )
    ).body.body.videos;
    assert.deepEqual(
      found.map((v: Json) => v.id),
      [id],
    );
    assert.deepEqual(found[0].metadata, expected);
    assert.equal(found[0].description, 'A description');
    for (const path of [`/${t.org.id}/environments/${t.envA.id}/videos`, `/${t.org.id}/videos`]) {
      const byExternal = (await request('GET', `${path}?externalId=ext-${id}`)).body;
      assert.deepEqual(
        byExternal.body.videos.map((v: Json) => v.id),
        [id],
        path,
      );
      assert.equal(byExternal.body.pagination.total, 1, path);
    }
  });

  it('leaves absent fields as they are and clears null ones; a video without metadata has no metadata field', async () => {
    const id = await seedVideo({ name: 'Partly changed' });
    await patch(id, { description: 'kept', metadata: { externalId: 'one', creatorId: 'two' } });
    const renamed = (await patch(id, { videoName: 'Renamed only' })).body.body;
    assert.equal(renamed.description, 'kept');
    assert.deepEqual(renamed.metadata, { externalId: 'one', creatorId: 'two' });
    assert.equal(renamed.allowPublicAccess, true);
    const cleared = (await patch(id, { description: null, metadata: { externalId: null, creatorId: null } })).body.body;
    assert.equal('description' in cleared, false);
    assert.equal('metadata' in cleared, false);
    assert.equal((await request('GET', `/${t.org.id}/videos?externalId=one`)).body.body.videos.length, 0);
  });

  it('refuses an empty change, unknown fields, over-long metadata and a bad name with 400 naming the field', async () => {
    const id = await seedVideo({ name: 'Refusals' });
    for (const [body, location] of [
      [{}, 'body'],
      [{ name: 'not a field' }, 'body.name'],
      [{ metadata: { externalId: 'x'.repeat(129) } }, 'body.metadata.externalId'],
      [{ metadata: { passthrough: 'x'.repeat(256) } }, 'body.metadata.passthrough'],
      [{ metadata: { other: 'x' } }, 'body.metadata.other'],
      [{ videoName: '' }, 'body.videoName'],
      [{ allowPublicAccess: 'no' }, 'body.allowPublicAccess'],
    ] as const) {
      const r = await patch(id, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assertErrorEnvelope(r.body, 400, 'invalid_request', assert);
      assert.ok(
        r.body.errors.some((e: Json) => e.location === location),
        `${JSON.stringify(body)}: ${JSON.stringify(r.body.errors)}`,
      );
    }
    assert.equal((await request('GET', `/${t.org.id}/videos/${id}/details`)).body.body.name, 'Refusals');
  });

  it('answers 404 for unknown and deleted videos and 403 across environments', async () => {
    const deleted = await seedVideo({ name: 'Deleted before its change', deleted: true });
    for (const id of ['vid_doesnotexist0000', deleted]) {
      const r = await patch(id, { videoName: 'x' });
      assert.equal(r.status, 404);
      assertErrorEnvelope(r.body, 404, 'video_not_found', assert);
    }
    const other = await seedVideo({ name: 'In A', envId: t.envA.id });
    assert.equal((await patch(other, { videoName: 'x' }, t.keys.envB)).status, 403);
    assert.equal((await request('GET', `/${t.org.id}/videos/${other}/details`)).body.body.name, 'In A');
  });
});

describe('custom thumbnails', () => {
  it('answer 409 video_not_ready before the video is ready, 404 for an unknown one, and 429 past the thumbnail limit', async () => {
    // The limit shrunk to 2 per hour; the real one (50) is the same rule with another number.
    const app = await api.buildAnother({ rateLimits: { thumbnails: { limit: 2 } } });
    const transcoding = await seedVideo({ name: 'Not ready for thumbnails', status: 'transcoding' });
    const post = (videoId: string) =>
      app.inject({
        method: 'POST',
        url: `/v1/api/${t.org.id}/videos/${videoId}/thumbnails`,
        headers: { 'x-api-key': t.keys.full },
        payload: { timestamp: 1 },
      });
    const notReady = await post(transcoding);
    assert.equal(notReady.statusCode, 409);
    assertErrorEnvelope(notReady.json<Json>(), 409, 'video_not_ready', assert);
    assert.equal(notReady.headers['x-ratelimit-limit'], '2');
    const unknown = await post('vid_doesnotexist0000');
    assertErrorEnvelope(unknown.json<Json>(), 404, 'video_not_found', assert);
    const limited = await post(transcoding);
    assert.equal(limited.statusCode, 429);
    assertErrorEnvelope(limited.json<Json>(), 429, 'rate_limit_exceeded', assert);
  });

  it('answer 409 video_has_no_picture for an audio-only video (no picture size)', async () => {
    const song = await seedVideo({ name: 'Audio only', width: 0, height: 0 });
    const r = await request('POST', `/${t.org.id}/videos/${song}/thumbnails`, { body: { timestamp: 1 } });
    assert.equal(r.status, 409);
    assertErrorEnvelope(r.body, 409, 'video_has_no_picture', assert);
  });
});

describe('retry', () => {
  it('sends a failed video back to transcoding, clears its failure and renditions, and starts video:{id} again', async () => {
    const id = await seedVideo({ name: 'To retry', status: 'failed', failureReason: 'node lost' });
    await replaceRenditions(api.db, id, [rendition(id, 360, 500)]);
    const r = await request('POST', `/${t.org.id}/videos/${id}/retry`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.body, { videoID: id, status: 'transcoding' });
    const video = await getVideo(api.db, id);
    assert.equal(video?.status, 'transcoding');
    assert.equal(video?.failure_reason, null);
    assert.deepEqual(await listRenditions(api.db, id), []);
    const handle = api.temporal.workflow.getHandle(`video:${id}`);
    const description = await handle.describe();
    assert.equal(description.type, 'processVideo');
    assert.equal(description.status.name, 'RUNNING');

    // It fails again while that run is still open: a retry now would collide with it.
    await markVideoFailed(api.db, id, 'failed again');
    const early = await request('POST', `/${t.org.id}/videos/${id}/retry`);
    assert.equal(early.status, 409);
    assertErrorEnvelope(early.body, 409, 'processing_in_progress', assert);
    assert.equal((await getVideo(api.db, id))?.status, 'failed');
    assert.equal((await getVideo(api.db, id))?.failure_reason, 'failed again');
    // Once the run is closed, the same workflow id runs again.
    await handle.terminate('test: the run ended');
    assert.equal((await request('POST', `/${t.org.id}/videos/${id}/retry`)).status, 200);
    const rerun = await api.temporal.workflow.getHandle(`video:${id}`).describe();
    assert.equal(rerun.status.name, 'RUNNING');
    assert.notEqual(rerun.runId, description.runId);
  });

  it('refuses anything but a failed video with 409 not_failed, and unknown or deleted ones with 404', async () => {
    for (const status of ['ready', 'transcoding'] as const) {
      const id = await seedVideo({ name: `Not failed ${status}`, status });
      const r = await request('POST', `/${t.org.id}/videos/${id}/retry`);
      assert.equal(r.status, 409, status);
      assertErrorEnvelope(r.body, 409, 'not_failed', assert);
      assert.equal((await getVideo(api.db, id))?.status, status);
    }
    const deleted = await seedVideo({ name: 'Deleted failed', status: 'failed', deleted: true });
    assert.equal((await request('POST', `/${t.org.id}/videos/${deleted}/retry`)).body.code, 'video_not_found');
    assert.equal((await request('POST', `/${t.org.id}/videos/vid_doesnotexist0000/retry`)).status, 404);
    const otherEnv = await seedVideo({ name: 'Other env failed', status: 'failed', envId: t.envB.id });
    assert.equal((await request('POST', `/${t.org.id}/videos/${otherEnv}/retry`, { key: t.keys.envA })).status, 403);
  });
});

describe('delete', () => {
  it('soft-deletes a ready video with a reason and starts delete:{id}', async () => {
    const id = await seedVideo({ name: 'To delete' });
    const before = Date.now();
    const r = await request('DELETE', `/${t.org.id}/videos/${id}`, { body: { reason: 'copyright_claim' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.body.status, 'deleted');
    assert.ok(Date.parse(r.body.body.deletedAt) >= before - 5000);
    assert.match(r.body.body.message, /24 hours/);
    const video = await getVideo(api.db, id);
    assert.ok(video?.deleted_at);
    assert.equal(video?.delete_reason, 'copyright_claim');
    const description = await api.temporal.workflow.getHandle(`delete:${id}`).describe();
    assert.equal(description.type, 'deleteVideoContent');
    assert.equal(description.taskQueue, 'kino-videos');

    // Hidden at once.
    assert.equal((await request('GET', `/${t.org.id}/videos/${id}/details`)).status, 404);
    const listed = await request('GET', `/${t.org.id}/videos?search=To%20delete`);
    assert.deepEqual(listed.body.body.videos, []);
    // A second delete: 400 already_deleted.
    const again = await request('DELETE', `/${t.org.id}/videos/${id}`);
    assert.equal(again.status, 400);
    assertErrorEnvelope(again.body, 400, 'already_deleted', assert);
  });

  it('deletes a failed video without a body', async () => {
    const id = await seedVideo({ name: 'Failed to delete', status: 'failed' });
    const r = await request('DELETE', `/${t.org.id}/videos/${id}`);
    assert.equal(r.status, 200);
    assert.equal((await getVideo(api.db, id))?.delete_reason, null);
  });

  it('refuses an unknown reason, a video still transcoding, another environment and unknown videos', async () => {
    const id = await seedVideo({ name: 'Keep me' });
    const badReason = await request('DELETE', `/${t.org.id}/videos/${id}`, { body: { reason: 'bored' } });
    assert.equal(badReason.status, 400);
    assert.equal(badReason.body.errors[0].location, 'body.reason');
    const transcoding = await seedVideo({ name: 'Busy', status: 'transcoding' });
    const busy = await request('DELETE', `/${t.org.id}/videos/${transcoding}`);
    assert.equal(busy.status, 409);
    assertErrorEnvelope(busy.body, 409, 'processing_in_progress', assert);
    const otherEnv = await seedVideo({ name: 'Theirs', envId: t.envB.id });
    const forbidden = await request('DELETE', `/${t.org.id}/videos/${otherEnv}`, { key: t.keys.envA });
    assert.equal(forbidden.status, 403);
    const missing = await request('DELETE', `/${t.org.id}/videos/vid_doesnotexist0000`);
    assert.equal(missing.status, 404);
    assertErrorEnvelope(missing.body, 404, 'video_not_found', assert);
    for (const kept of [id, transcoding, otherEnv]) assert.equal((await getVideo(api.db, kept))?.deleted_at, null);
  });

  it('answers 503 and keeps the video when the clean-up workflow cannot start', async () => {
    const id = await seedVideo({ name: 'Survives' });
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
    const app = await api.buildAnother({ temporal: new Client({ connection }) });
    const r = await app.inject({
      method: 'DELETE',
      url: `/v1/api/${t.org.id}/videos/${id}`,
      headers: { 'x-api-key': t.keys.full },
    });
    await connection.close();
    assert.equal(r.statusCode, 503);
    assertErrorEnvelope(r.json(), 503, 'service_unavailable', assert);
    assert.equal((await getVideo(api.db, id))?.deleted_at, null);
  });
});

describe('environment settings (PATCH)', () => {
  const environments = async () => (await request('GET', `/${t.org.id}/environments`)).body.body.environments as Json[];
  const justInTimeOf = async (envId: string) => (await environments()).find((env) => env.id === envId)?.justInTime;
  const patch = (envId: string, body: unknown, key?: string) =>
    request('PATCH', `/${t.org.id}/environments/${envId}`, { body, ...(key ? { key } : {}) });

  it("answer justInTime null (the farm's default) until set; PATCH sets true, false and null, answers the environment, and the list and the orchestrator's read show it", async () => {
    for (const env of await environments()) {
      assert.deepEqual(Object.keys(env).sort(), [
        'createdAt',
        'hardwareEncoding',
        'id',
        'justInTime',
        'name',
        'nodeLabels',
        'watermark',
      ]);
      assert.equal(env.justInTime, null, env.name);
      assert.equal(env.watermark, null, env.name);
    }
    const video = await seedVideo({ name: 'In an environment whose setting changes' });
    // The environment's own key may change it, as a full key may.
    for (const [justInTime, key] of [
      [false, t.keys.full],
      [true, t.keys.envA],
      [null, t.keys.full],
    ] as const) {
      const r = await patch(t.envA.id, { justInTime }, key);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.body, {
        id: t.envA.id,
        name: 'production',
        createdAt: t.envA.created_at.toISOString(),
        justInTime,
        hardwareEncoding: 'never',
        nodeLabels: [],
        watermark: null,
      });
      assert.equal(await justInTimeOf(t.envA.id), justInTime);
      assert.equal(
        await environmentJustInTime(api.db, video),
        justInTime,
        'what the orchestrator reads for a video of the environment',
      );
      assert.equal(await justInTimeOf(t.envB.id), null, 'another environment keeps its own');
    }
  });

  it('refuse anything but true, false or null with 400 naming justInTime, and an empty body or unknown fields; the setting stays', async () => {
    await patch(t.envB.id, { justInTime: false });
    for (const [body, location] of [
      [{ justInTime: 'yes' }, 'body.justInTime'],
      [{ justInTime: 1 }, 'body.justInTime'],
      [{}, 'body'],
      [{ hardwareEncoding: 'sometimes' }, 'body.hardwareEncoding'],
      [{ nodeLabels: ['a,b'] }, 'body.nodeLabels[0]'],
      [{ justInTime: true, name: 'renamed' }, 'body.name'],
    ] as const) {
      const r = await patch(t.envB.id, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assertErrorEnvelope(r.body, 400, 'invalid_request', assert);
      assert.ok(
        r.body.errors.some((e: Json) => e.location === location),
        `${JSON.stringify(body)}: ${JSON.stringify(r.body.errors)}`,
      );
    }
    assert.equal(await justInTimeOf(t.envB.id), false);
    await patch(t.envB.id, { justInTime: null });
  });

  it('set the encode defaults of its videos (hardwareEncoding, nodeLabels) beside just-in-time, which stays (issue 54)', async () => {
    await patch(t.envB.id, { justInTime: false });
    const r = await patch(t.envB.id, { hardwareEncoding: 'allowed', nodeLabels: ['acme', 'region=eu'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      [r.body.body.justInTime, r.body.body.hardwareEncoding, r.body.body.nodeLabels],
      [false, 'allowed', ['acme', 'region=eu']],
    );
    const listed = (await environments()).find((env) => env.id === t.envB.id)!;
    assert.deepEqual([listed.hardwareEncoding, listed.nodeLabels], ['allowed', ['acme', 'region=eu']]);
    const back = await patch(t.envB.id, { justInTime: null, hardwareEncoding: 'never', nodeLabels: [] });
    assert.deepEqual(
      [back.body.body.justInTime, back.body.body.hardwareEncoding, back.body.body.nodeLabels],
      [null, 'never', []],
    );
  });

  it("answer 404 environment_not_found for an unknown environment or another organization's, and 403 to another environment's key", async () => {
    for (const envId of ['env_doesnotexist00', t.otherEnv.id]) {
      const r = await patch(envId, { justInTime: false });
      assert.equal(r.status, 404, envId);
      assertErrorEnvelope(r.body, 404, 'environment_not_found', assert);
    }
    assert.equal(
      (await getEnvironment(api.db, t.otherEnv.id))?.just_in_time,
      null,
      "the other organization's environment is untouched",
    );
    const refused = await patch(t.envB.id, { justInTime: false }, t.keys.envA);
    assert.equal(refused.status, 403);
    assertErrorEnvelope(refused.body, 403, 'forbidden', assert);
    assert.equal(await justInTimeOf(t.envB.id), null);
  });
});

describe('webhooks', () => {
  const base = () => `/${t.org.id}/environments/${t.envA.id}/webhooks`;

  it('register with every event by default and show a Standard Webhooks secret once', async () => {
    const r = await request('POST', base(), { body: { url: 'https://hooks.example.com/kino' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const hook = r.body.body;
    assert.match(hook.id, /^whk_/);
    assert.equal(hook.url, 'https://hooks.example.com/kino');
    assert.deepEqual(hook.events, [
      'video.created',
      'video.processing.completed',
      'video.processing.failed',
      'video.updated',
      'video.deleted',
      'video.caption.ready',
      'live_stream.active',
      'live_stream.disconnected',
      'live_stream.idle',
      'live_stream.recording.ready',
    ]);
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.ok(Buffer.from(hook.secret.slice('whsec_'.length), 'base64').length >= 24);
    const listed = await request('GET', base());
    const entry = listed.body.body.webhooks.find((w: Json) => w.id === hook.id);
    assert.deepEqual(Object.keys(entry).sort(), ['createdAt', 'events', 'id', 'url']);
    assert.ok(!JSON.stringify(listed.body).includes(hook.secret));
  });

  it('register for chosen events only, per environment', async () => {
    const r = await request('POST', base(), {
      key: t.keys.envA,
      body: { url: 'http://hooks.example.com:9999/hook', events: ['video.processing.failed'] },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.body.events, ['video.processing.failed']);
    const inB = await request('GET', `/${t.org.id}/environments/${t.envB.id}/webhooks`);
    assert.ok(!inB.body.body.webhooks.some((w: Json) => w.id === r.body.body.id));
    assert.equal(
      (await request('GET', `/${t.org.id}/environments/${t.envB.id}/webhooks`, { key: t.keys.envA })).status,
      403,
    );
  });

  it('refuse bad URLs and events', async () => {
    for (const url of ['ftp://example.com/x', 'not a url', 'https://user:pass@example.com/']) {
      const r = await request('POST', base(), { body: { url } });
      assert.equal(r.status, 400, url);
      assertErrorEnvelope(r.body, 400, 'invalid_url', assert);
    }
    for (const events of [
      ['video.exploded'],
      ['webhook.test'],
      [],
      ['video.processing.failed', 'video.processing.failed'],
      'video.processing.failed',
    ]) {
      const r = await request('POST', base(), { body: { url: 'https://example.com/', events } });
      assert.equal(r.status, 400, JSON.stringify(events));
      assertErrorEnvelope(r.body, 400, 'invalid_events', assert);
    }
  });

  it('refuse destinations that are not public: loopback, private, link-local, metadata, after DNS too', async () => {
    const notPublic = [
      'http://127.0.0.1/hook',
      'http://localhost.private.test/hook',
      'http://10.0.0.1/hook',
      'http://192.168.1.20:8080/hook',
      'http://172.16.0.5/hook',
      'http://100.64.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://0.0.0.0/hook',
      'https://hooks.private.test/kino',
      'https://ula.private.test/kino',
      'https://loopback6.private.test/kino',
      'https://linklocal6.private.test/kino',
      'http://metadata.private.test/latest/meta-data/',
    ];
    for (const url of notPublic) {
      const r = await request('POST', base(), { body: { url } });
      assert.equal(r.status, 400, url);
      assertErrorEnvelope(r.body, 400, 'webhook_url_not_public', assert);
      assert.equal(r.body.errors[0].location, 'body.url');
    }
    // IPv6 literals are no webhook URL at all (the URL pattern takes host names and IPv4 only).
    for (const url of [
      'http://[::1]/hook',
      'http://[fd12:3456::1]/hook',
      'http://[fe80::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
    ]) {
      const r = await request('POST', base(), { body: { url } });
      assert.equal(r.status, 400, url);
      assertErrorEnvelope(r.body, 400, 'invalid_url', assert);
    }
    const unresolvable = await request('POST', base(), { body: { url: 'https://nowhere.invalid/hook' } });
    assert.equal(unresolvable.status, 400);
    assertErrorEnvelope(unresolvable.body, 400, 'webhook_url_unresolvable', assert);
    assert.ok(!(await request('GET', base())).body.body.webhooks.some((w: Json) => notPublic.includes(w.url)));
    // The dev stack's setting: any address.
    const devApp = await api.buildAnother({ config: { ...api.config, WEBHOOK_ALLOW_PRIVATE: true } });
    const loopback = await devApp.inject({
      method: 'POST',
      url: `/v1/api${base()}`,
      headers: { 'x-api-key': t.keys.full, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'http://127.0.0.1:9999/hook' }),
    });
    assert.equal(loopback.statusCode, 200, loopback.body);
  });

  it('a test event and a redelivery: one signed attempt each, logged with status, error and attempt; unknown ids are 404', async () => {
    // A receiver on loopback (the dev stack's setting) that refuses its first delivery.
    const seen: Array<{ id: string; body: string }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ id: String(req.headers['webhook-id']), body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(seen.length === 1 ? 500 : 204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const devApp = await api.buildAnother({ config: { ...api.config, WEBHOOK_ALLOW_PRIVATE: true } });
    const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
      const r = await devApp.inject({
        method,
        url: `/v1/api${url}`,
        headers: { 'x-api-key': t.keys.full, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: r.statusCode, body: r.json() as Json };
    };
    try {
      const port = (receiver.address() as AddressInfo).port;
      const hook = (await call('POST', base(), { url: `http://127.0.0.1:${port}/hook`, events: ['video.deleted'] }))
        .body.body;

      const tested = await call('POST', `${base()}/${hook.id}/test`);
      assert.equal(tested.status, 200);
      assert.deepEqual(
        [tested.body.body.event, tested.body.body.attempt, tested.body.body.responseStatus, tested.body.body.error],
        ['webhook.test', 1, 500, 'webhook endpoint answered 500'],
      );
      const sent = JSON.parse(seen[0]!.body) as Json;
      assert.deepEqual(
        [sent.event, sent.videoId, sent.status, sent.data],
        ['webhook.test', null, null, { webhookId: hook.id, message: sent.data.message }],
      );
      assert.equal(seen[0]!.id, tested.body.body.messageId);

      const again = await call('POST', `${base()}/${hook.id}/deliveries/${tested.body.body.id}/redeliver`);
      assert.equal(again.status, 200);
      assert.deepEqual(
        [again.body.body.attempt, again.body.body.responseStatus, again.body.body.error],
        [2, 204, null],
      );
      assert.equal(seen[1]!.id, seen[0]!.id, 'a redelivery keeps the webhook-id');
      assert.equal(seen[1]!.body, seen[0]!.body, 'and the body');

      const log = await call('GET', `${base()}/${hook.id}/deliveries`);
      assert.deepEqual(
        log.body.body.deliveries.map((d: Json) => [d.id, d.attempt, d.responseStatus]),
        [
          [again.body.body.id, 2, 204],
          [tested.body.body.id, 1, 500],
        ],
      );

      const unknownDelivery = await call('POST', `${base()}/${hook.id}/deliveries/whd_NoSuchDelivery01/redeliver`);
      assertErrorEnvelope(unknownDelivery.body, 404, 'webhook_delivery_not_found', assert);
      const otherEnv = await call('GET', `/${t.org.id}/environments/${t.envB.id}/webhooks/${hook.id}/deliveries`);
      assertErrorEnvelope(otherEnv.body, 404, 'webhook_not_found', assert);
      assertErrorEnvelope(
        (await call('POST', `${base()}/whk_NoSuchWebhook001/test`)).body,
        404,
        'webhook_not_found',
        assert,
      );
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('remove a webhook once; another environment cannot remove it', async () => {
    const created = (await request('POST', base(), { body: { url: 'https://example.com/remove-me' } })).body.body;
    const wrongEnv = await request('DELETE', `/${t.org.id}/environments/${t.envB.id}/webhooks/${created.id}`);
    assert.equal(wrongEnv.status, 404);
    assertErrorEnvelope(wrongEnv.body, 404, 'webhook_not_found', assert);
    const removed = await request('DELETE', `${base()}/${created.id}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body.body, { id: created.id, status: 'deleted' });
    assert.ok(!(await request('GET', base())).body.body.webhooks.some((w: Json) => w.id === created.id));
    assert.equal((await request('DELETE', `${base()}/${created.id}`)).status, 404);
  });
});
