// Caption tracks through the API on real PostgreSQL and real S3 (SeaweedFS): upload (WebVTT, and SRT
// converted to WebVTT), replace, list, details, delete; the stored file under the video's prefix;
// the errors in the envelope (a bad file names its line); Idempotency-Key and the rate-limit
// headers. What delivery makes of a track is the end-to-end test's (test/e2e/captions-playback.test.ts).
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { newId } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { createVideo } from '@kino/database/repositories';
import { captionMaxBytes, defaultEncodingParameters } from '@kino/proto/contract';
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
  services = await startTestServices({ postgres: true, s3: true });
  api = await startApiHarness(services);
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

async function seedVideo({
  status = 'ready',
  allowPublicAccess = true,
}: { status?: 'ready' | 'transcoding'; allowPublicAccess?: boolean } = {}): Promise<string> {
  const id = newId('vid');
  await createVideo(api.db, {
    id,
    orgId: t.org.id,
    envId: t.envA.id,
    name: 'captioned',
    storagePath: `uploads/${t.org.id}/${t.envA.id}/${newId('upl')}/source.mp4`,
    videoQuality: 'standard',
    allowPublicAccess,
    parameters: defaultEncodingParameters,
  });
  await api.db.updateTable('videos').set({ status, duration_seconds: 20 }).where('id', '=', id).execute();
  return id;
}

/** A call to the API with the full key unless another is named. */
const request = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
) => apiRequest(api.app, method, url, { key: t.keys.full, ...options });

/** The key a track's file is stored under, from the table (the API does not show it). */
async function storedKey(videoId: string, language: string): Promise<string> {
  const row = await api.db
    .selectFrom('caption_tracks')
    .select('storage_key')
    .where('video_id', '=', videoId)
    .where('language', '=', language)
    .executeTakeFirstOrThrow();
  return row.storage_key;
}

const vtt = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nHello\n\n00:00:05.000 --> 00:00:08.000\nAcross the boundary\n';
const srt =
  '1\r\n00:00:01,000 --> 00:00:02,500\r\nOlá\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\n<font color="red">mundo</font>\r\n';

describe('caption tracks', () => {
  it('are uploaded as WebVTT and SRT (converted), listed by language, and shown in the details', async () => {
    const videoId = await seedVideo();
    const path = `/${t.org.id}/videos/${videoId}/captions`;
    const en = await request('POST', path, { body: { language: 'en', content: vtt } });
    assert.equal(en.status, 200, JSON.stringify(en.body));
    const publicBase = `http://delivery.test/v1/public/${t.org.id}/${t.envA.id}/${videoId}`;
    assert.deepEqual(en.body.body, {
      language: 'en',
      label: 'English',
      default: false,
      source: 'uploaded',
      url: `${publicBase}/subtitles-en.vtt`,
    });
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      assert.ok(en.headers[header], header);

    // A lower-case region is the same language: stored under its canonical tag.
    const pt = await request('POST', path, { body: { language: 'pt-br', format: 'srt', content: srt, default: true } });
    assert.equal(pt.status, 200, JSON.stringify(pt.body));
    assert.deepEqual(pt.body.body, {
      language: 'pt-BR',
      label: 'Brazilian Portuguese',
      default: true,
      source: 'uploaded',
      url: `${publicBase}/subtitles-pt-BR.vtt`,
    });

    const stored = await api.storage.getObject(await storedKey(videoId, 'pt-BR'));
    assert.ok(stored, 'the file is in storage');
    assert.equal(
      stored.body.toString('utf8'),
      'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.500\nOlá\n\n2\n00:00:03.000 --> 00:00:04.000\nmundo\n',
    );
    assert.match(
      await storedKey(videoId, 'pt-BR'),
      new RegExp(`^videos/${videoId}/captions/pt-BR/[A-Za-z0-9]+\\.vtt$`),
    );

    const list = await request('GET', path);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.body.captions, [en.body.body, pt.body.body]);
    const details = await request('GET', `/${t.org.id}/videos/${videoId}/details`);
    assert.deepEqual(details.body.body.captions, list.body.body.captions);
  });

  it('of a language are replaced by a second upload, which may take the default; the old file goes', async () => {
    const videoId = await seedVideo();
    const path = `/${t.org.id}/videos/${videoId}/captions`;
    await request('POST', path, { body: { language: 'en', content: vtt, default: true } });
    const firstKey = await storedKey(videoId, 'en');
    await request('POST', path, { body: { language: 'fr', content: vtt } });
    const replaced = await request('POST', path, {
      body: { language: 'en', label: 'English (CC)', content: vtt.replace('Hello', 'Hi'), default: false },
    });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.body.body.label, 'English (CC)');
    const secondKey = await storedKey(videoId, 'en');
    assert.notEqual(secondKey, firstKey, 'a new key per upload: delivery caches objects as immutable');
    assert.equal(await api.storage.getObject(firstKey), undefined, 'the replaced file is removed');
    assert.match((await api.storage.getObject(secondKey))!.body.toString('utf8'), /Hi/);

    const promoted = await request('POST', path, { body: { language: 'fr', content: vtt, default: true } });
    assert.equal(promoted.body.body.default, true);
    const list = await request('GET', path);
    assert.deepEqual(
      list.body.body.captions.map((c: Json) => [c.language, c.default]),
      [
        ['en', false],
        ['fr', true],
      ],
    );
    await request('POST', path, { body: { language: 'en', content: vtt, default: true } });
    const again = await request('GET', path);
    assert.deepEqual(
      again.body.body.captions.map((c: Json) => [c.language, c.default]),
      [
        ['en', true],
        ['fr', false],
      ],
      'at most one default: taking it clears the other',
    );
  });

  it('are deleted by language, the file with them', async () => {
    const videoId = await seedVideo();
    const path = `/${t.org.id}/videos/${videoId}/captions`;
    await request('POST', path, { body: { language: 'en', content: vtt } });
    const key = await storedKey(videoId, 'en');
    const deleted = await request('DELETE', `${path}/en`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body.body, { language: 'en', status: 'deleted' });
    assert.equal(await api.storage.getObject(key), undefined);
    assert.deepEqual((await request('GET', path)).body.body.captions, []);
    const again = await request('DELETE', `${path}/en`);
    assert.equal(again.status, 404);
    assertErrorEnvelope(again.body, 404, 'caption_not_found', assert);
  });

  it('of a private video download with a playback token', async () => {
    const videoId = await seedVideo({ allowPublicAccess: false });
    const added = await request('POST', `/${t.org.id}/videos/${videoId}/captions`, {
      body: { language: 'de', content: vtt },
    });
    assert.equal(added.status, 200);
    assert.match(
      added.body.body.url,
      new RegExp(
        `^http://delivery\\.test/v1/private/${videoId}/subtitles-de\\.vtt\\?token=[\\w-]+\\.[\\w-]+\\.[\\w-]+$`,
      ),
    );
  });

  it('honour Idempotency-Key: a repeated POST answers the first response without storing again', async () => {
    const videoId = await seedVideo();
    const path = `/${t.org.id}/videos/${videoId}/captions`;
    const headers = { 'idempotency-key': `captions-${videoId}` };
    const first = await request('POST', path, { body: { language: 'en', content: vtt }, headers });
    const key = await storedKey(videoId, 'en');
    const retried = await request('POST', path, { body: { language: 'en', content: vtt }, headers });
    assert.equal(retried.status, 200);
    assert.equal(retried.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retried.body, first.body);
    assert.equal(await storedKey(videoId, 'en'), key, 'the track was not stored again');
  });
});

describe('caption errors', () => {
  it('a file that does not parse is 400 invalid_caption naming the line', async () => {
    const videoId = await seedVideo();
    const path = `/${t.org.id}/videos/${videoId}/captions`;
    const badSrt = '1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:03,000 -> 00:00:04,000\nbroken arrow\n';
    const r = await request('POST', path, { body: { language: 'en', format: 'srt', content: badSrt } });
    assert.equal(r.status, 400);
    assertErrorEnvelope(r.body, 400, 'invalid_caption', assert);
    assert.match(r.body.detail, /line 6: expected a timing line/);
    assert.deepEqual(
      r.body.errors.map((e: Json) => [e.location, e.value]),
      [['body.content', 'line 6']],
    );

    const badVtt = await request('POST', path, {
      body: { language: 'en', content: 'WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nbackwards\n' },
    });
    assertErrorEnvelope(badVtt.body, 400, 'invalid_caption', assert);
    assert.match(badVtt.body.detail, /line 3: the cue ends/);
    // An SRT file sent as WebVTT (the default format) does not parse either.
    assert.match(
      (await request('POST', path, { body: { language: 'en', content: srt } })).body.detail,
      /line 1: a WebVTT file starts with "WEBVTT"/,
    );
    assert.deepEqual((await request('GET', path)).body.body.captions, [], 'nothing was stored');
  });

  it('a bad language, format or body is 400 invalid_caption; a file over 2 MB is 413', async () => {
    const videoId = await seedVideo();
    const path = `/${t.org.id}/videos/${videoId}/captions`;
    for (const body of [
      { language: 'english please', content: vtt },
      { language: 'x', content: vtt },
      { language: 'en', content: vtt, format: 'ass' },
      { language: 'en' },
      { language: 'en', content: vtt, default: 'yes' },
    ]) {
      const r = await request('POST', path, { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assertErrorEnvelope(r.body, 400, 'invalid_caption', assert);
    }
    const cue = '00:00:01.000 --> 00:00:02.000\nsome words of a long file\n\n';
    const huge = `WEBVTT\n\n${cue.repeat(Math.ceil(captionMaxBytes / cue.length) + 1)}`;
    const tooLarge = await request('POST', path, { body: { language: 'en', content: huge } });
    assert.equal(tooLarge.status, 413);
    assertErrorEnvelope(tooLarge.body, 413, 'payload_too_large', assert);
  });

  it('a video not ready is 409 video_not_ready; an unknown or unreachable one is 404 video_not_found', async () => {
    const transcoding = await seedVideo({ status: 'transcoding' });
    const notReady = await request('POST', `/${t.org.id}/videos/${transcoding}/captions`, {
      body: { language: 'en', content: vtt },
    });
    assert.equal(notReady.status, 409);
    assertErrorEnvelope(notReady.body, 409, 'video_not_ready', assert);

    const missing = await request('POST', `/${t.org.id}/videos/vid_nope/captions`, {
      body: { language: 'en', content: vtt },
    });
    assertErrorEnvelope(missing.body, 404, 'video_not_found', assert);
    assertErrorEnvelope(
      (await request('GET', `/${t.org.id}/videos/vid_nope/captions`)).body,
      404,
      'video_not_found',
      assert,
    );
    assertErrorEnvelope(
      (await request('DELETE', `/${t.org.id}/videos/vid_nope/captions/en`)).body,
      404,
      'video_not_found',
      assert,
    );

    const ready = await seedVideo();
    const otherOrg = await request('GET', `/${t.otherOrg.id}/videos/${ready}/captions`, { key: t.keys.otherFull });
    assertErrorEnvelope(otherOrg.body, 404, 'video_not_found', assert);
  });
});
