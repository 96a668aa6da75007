// Clips through the API on real PostgreSQL and real S3 (SeaweedFS): a segment-accurate clip is a new
// ready video whose stored playlists name the source's segments under its own names, with clipOf in
// its details and the span of its segments as its duration; the range and state errors in the
// envelope; Idempotency-Key and the rate-limit headers. A frame-accurate clip is created
// `transcoding` with its master playlist and its makeFrameAccurateClip workflow started (on a real
// Temporal; no orchestrator runs here, so it stays there). Playing a clip, encoding a frame-accurate
// one, analytics and retention after the source's deletion are the farm test's (test/e2e/clips.test.ts).
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { newId } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { createVideo, markVideoReady } from '@kino/database/repositories';
import { defaultEncodingParameters, hlsContentTypes, objectKeys } from '@kino/proto/contract';
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
  services = await startTestServices({ postgres: true, temporal: true, s3: true });
  api = await startApiHarness(services);
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

const master =
  '#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e"\n360p/playlist.m3u8\n';
/** Five segments: 6, 6, 6, 6 and 2.5 s (26.5 s). */
const durations = [6, 6, 6, 6, 2.5];
const playlist = [
  '#EXTM3U',
  '#EXT-X-TARGETDURATION:6',
  '#EXT-X-MAP:URI="init.mp4"',
  ...durations.flatMap((d, i) => [`#EXTINF:${d.toFixed(6)},`, `seg-0000${i}.m4s`]),
  '#EXT-X-ENDLIST',
  '',
].join('\n');

/** A video in `status`; a ready one has a 360p rendition and its playlists in storage. */
async function seedVideo(status: 'ready' | 'transcoding' = 'ready'): Promise<string> {
  const id = newId('vid');
  await createVideo(api.db, {
    id,
    orgId: t.org.id,
    envId: t.envA.id,
    name: 'source',
    storagePath: `uploads/${t.org.id}/${t.envA.id}/${newId('upl')}/source.mp4`,
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: defaultEncodingParameters,
  });
  if (status === 'transcoding') return id;
  await api.storage.put(objectKeys.master(id), master, hlsContentTypes.playlist);
  await api.storage.put(objectKeys.renditionPlaylist(id, 360), playlist, hlsContentTypes.playlist);
  await markVideoReady(api.db, id, {
    source: { durationSeconds: 26.5, width: 640, height: 360, frameRate: 25 },
    thumbnailKey: objectKeys.thumbnail(id, 'default.jpg'),
    renditions: [
      {
        video_id: id,
        key: '360p',
        width: 640,
        height: 360,
        short_edge_pixels: 360,
        short_edge_is_width: false,
        video_bitrate_kbps: 800,
        audio_bitrate_kbps: 128,
        audio_format: 'aac',
        frame_rate: 25,
        pixel_format: 'yuv420p',
        rate_control_mode: 'vbr',
        two_pass: false,
        compression_ratio: 'standard',
        codecs: 'avc1.64001e,mp4a.40.2',
        bandwidth: 800000,
        segment_count: durations.length,
      },
    ],
  });
  return id;
}

/** A call to the API with the full key unless another is named. */
const request = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) => apiRequest(api.app, method, url, { key: t.keys.full, ...options });

const text = async (key: string) => (await api.storage.getObject(key))?.body.toString('utf8');

describe('clips', () => {
  it('are ready videos of their own that play the segments overlapping the range', async () => {
    const sourceId = await seedVideo();
    const made = await request('POST', `/${t.org.id}/videos/${sourceId}/clips`, {
      body: { startTime: 7, endTime: 13.5, videoName: 'the middle' },
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      assert.ok(made.headers[header], header);
    const clipId = made.body.body.videoID as string;
    assert.notEqual(clipId, sourceId);

    const details = await request('GET', `/${t.org.id}/videos/${clipId}/details`);
    assert.equal(details.status, 200);
    const clip = details.body.body;
    assert.equal(clip.name, 'the middle');
    assert.equal(clip.envId, t.envA.id);
    assert.deepEqual(clip.status, { ready: true, transcoding: false, failed: false });
    assert.deepEqual(clip.clipOf, { videoId: sourceId, startTime: 7, endTime: 13.5 });
    // Segments 1 and 2 (6–18 s) overlap 7–13.5 s: the clip plays their 12 s.
    assert.equal(clip.durationSeconds, 12);
    assert.deepEqual(
      clip.encodings.map((e: Json) => e.key),
      ['360p'],
    );
    const source = (await request('GET', `/${t.org.id}/videos/${sourceId}/details`)).body.body;
    assert.equal(source.clipOf, undefined, 'a video that is not a clip has no clipOf');

    // Its own playlists, under its own prefix, with its own segment names; the master is the source's.
    assert.equal(await text(objectKeys.master(clipId)), master);
    const clipPlaylist = await text(objectKeys.renditionPlaylist(clipId, 360));
    assert.deepEqual(
      clipPlaylist?.split('\n').filter((line) => line.startsWith('#EXTINF') || line.startsWith('seg-')),
      ['#EXTINF:6.000000,', 'seg-00000.m4s', '#EXTINF:6.000000,', 'seg-00001.m4s'],
    );
    const row = await api.db.selectFrom('videos').selectAll().where('id', '=', clipId).executeTakeFirstOrThrow();
    assert.equal(row.clip_media_video_id, sourceId);
    assert.equal(row.clip_first_segment, 1);
    assert.equal(row.thumbnail_key, objectKeys.thumbnail(sourceId, 'default.jpg'), "the source's thumbnail");
    const renditions = await api.db.selectFrom('renditions').selectAll().where('video_id', '=', clipId).execute();
    assert.equal(renditions[0]?.segment_count, 2);
  });

  it("of a clip play the first clip's media video, counted from its segments", async () => {
    const sourceId = await seedVideo();
    const first = (
      await request('POST', `/${t.org.id}/videos/${sourceId}/clips`, { body: { startTime: 6, endTime: 26.5 } })
    ).body.body.videoID as string;
    const second = await request('POST', `/${t.org.id}/videos/${first}/clips`, { body: { startTime: 6, endTime: 7 } });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    const row = await api.db
      .selectFrom('videos')
      .selectAll()
      .where('id', '=', second.body.body.videoID)
      .executeTakeFirstOrThrow();
    assert.equal(row.clip_of_video_id, first);
    assert.equal(row.clip_media_video_id, sourceId);
    assert.equal(row.clip_first_segment, 2, "the first clip's segment 1 is the source's segment 2");
    assert.equal(row.duration_seconds, 6);
  });

  it('honour Idempotency-Key: a repeated POST answers the first clip and makes no second', async () => {
    const sourceId = await seedVideo();
    const headers = { 'idempotency-key': `clip-${sourceId}` };
    const path = `/${t.org.id}/videos/${sourceId}/clips`;
    const first = await request('POST', path, { body: { startTime: 0, endTime: 1 }, headers });
    const retried = await request('POST', path, { body: { startTime: 0, endTime: 1 }, headers });
    assert.equal(retried.status, 200);
    assert.equal(retried.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retried.body, first.body);
    const clips = await api.db.selectFrom('videos').select('id').where('clip_of_video_id', '=', sourceId).execute();
    assert.equal(clips.length, 1);
  });
});

describe('frame-accurate clips', () => {
  it('are created transcoding, with the master playlist and a workflow that encodes their first and last segments', async () => {
    const sourceId = await seedVideo();
    const made = await request('POST', `/${t.org.id}/videos/${sourceId}/clips`, {
      body: { startTime: 7.04, endTime: 20.2, frameAccurate: true },
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const clipId = made.body.body.videoID as string;
    const clip = (await request('GET', `/${t.org.id}/videos/${clipId}/details`)).body.body;
    assert.deepEqual(clip.status, { ready: false, transcoding: true, failed: false });
    assert.deepEqual(clip.clipOf, { videoId: sourceId, startTime: 7.04, endTime: 20.2 });

    // Segments 1, 2 and 3 (6–24 s) overlap the range: the clip's 0 and 2 are its own, its 1 the source's 2.
    const row = await api.db.selectFrom('videos').selectAll().where('id', '=', clipId).executeTakeFirstOrThrow();
    assert.equal(row.clip_media_video_id, sourceId);
    assert.equal(row.clip_first_segment, 1);
    assert.deepEqual(row.clip_own_segments, [0, 2]);
    assert.equal(await text(objectKeys.master(clipId)), master);
    assert.equal(
      await text(objectKeys.renditionPlaylist(clipId, 360)),
      undefined,
      'the workflow writes the media playlists',
    );

    const handle = api.temporal.workflow.getHandle(`video:${clipId}`);
    const described = await handle.describe();
    assert.equal(described.type, 'makeFrameAccurateClip');
    const history = await handle.fetchHistory();
    const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    assert.deepEqual(JSON.parse(Buffer.from(input!).toString('utf8')), {
      videoId: clipId,
      sourceVideoId: sourceId,
      cuts: [7.04, 12, 18, 20.2],
    });
    await handle.terminate('the test is done with it');
  });

  it('inside one segment of the source have that one segment of their own', async () => {
    const sourceId = await seedVideo();
    const made = await request('POST', `/${t.org.id}/videos/${sourceId}/clips`, {
      body: { startTime: 7, endTime: 11, frameAccurate: true },
    });
    const clipId = made.body.body.videoID as string;
    const row = await api.db.selectFrom('videos').selectAll().where('id', '=', clipId).executeTakeFirstOrThrow();
    assert.deepEqual(row.clip_own_segments, [0]);
    await api.temporal.workflow.getHandle(`video:${clipId}`).terminate('the test is done with it');
  });
});

describe('clip errors', () => {
  it('a frame-accurate clip of a clip, or any clip of a frame-accurate clip, is 400 invalid_request', async () => {
    const sourceId = await seedVideo();
    const path = (id: string) => `/${t.org.id}/videos/${id}/clips`;
    const segmentClip = (await request('POST', path(sourceId), { body: { startTime: 6, endTime: 26.5 } })).body.body
      .videoID as string;
    const ofClip = await request('POST', path(segmentClip), {
      body: { startTime: 1, endTime: 2, frameAccurate: true },
    });
    assert.equal(ofClip.status, 400);
    assertErrorEnvelope(ofClip.body, 400, 'invalid_request', assert);

    const frameClip = (
      await request('POST', path(sourceId), { body: { startTime: 1, endTime: 2, frameAccurate: true } })
    ).body.body.videoID as string;
    await api.temporal.workflow.getHandle(`video:${frameClip}`).terminate('the test is done with it');
    // Made ready here as the workflow would: a clip of it is refused all the same.
    await api.db.updateTable('videos').set({ status: 'ready' }).where('id', '=', frameClip).execute();
    const ofFrameClip = await request('POST', path(frameClip), { body: { startTime: 0, endTime: 0.5 } });
    assert.equal(ofFrameClip.status, 400);
    assertErrorEnvelope(ofFrameClip.body, 400, 'invalid_request', assert);
  });

  it('a range that is empty, reversed, negative or past the end is 400 invalid_clip_range', async () => {
    const sourceId = await seedVideo();
    const path = `/${t.org.id}/videos/${sourceId}/clips`;
    for (const body of [
      { startTime: 5, endTime: 5 },
      { startTime: 6, endTime: 5 },
      { startTime: -1, endTime: 5 },
      { startTime: 0, endTime: 26.6 },
      { startTime: 0, endTime: 'ten' },
      { startTime: 6, endTime: 5, frameAccurate: true },
      { startTime: 0, endTime: 26.6, frameAccurate: true },
    ]) {
      const r = await request('POST', path, { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assertErrorEnvelope(r.body, 400, 'invalid_clip_range', assert);
    }
    // The end of the video is a valid end.
    assert.equal((await request('POST', path, { body: { startTime: 20, endTime: 26.5 } })).status, 200);
  });

  it('a source still transcoding is 409 video_not_ready; an unknown or deleted one 404 video_not_found', async () => {
    const transcoding = await seedVideo('transcoding');
    const notReady = await request('POST', `/${t.org.id}/videos/${transcoding}/clips`, {
      body: { startTime: 0, endTime: 1 },
    });
    assert.equal(notReady.status, 409);
    assertErrorEnvelope(notReady.body, 409, 'video_not_ready', assert);

    const unknown = await request('POST', `/${t.org.id}/videos/vid_nosuchvideo/clips`, {
      body: { startTime: 0, endTime: 1 },
    });
    assert.equal(unknown.status, 404);
    assertErrorEnvelope(unknown.body, 404, 'video_not_found', assert);

    const deleted = await seedVideo();
    await api.db.updateTable('videos').set({ deleted_at: new Date() }).where('id', '=', deleted).execute();
    const gone = await request('POST', `/${t.org.id}/videos/${deleted}/clips`, { body: { startTime: 0, endTime: 1 } });
    assert.equal(gone.status, 404);
    assertErrorEnvelope(gone.body, 404, 'video_not_found', assert);
  });
});
