// The database activities and the webhook sender against the real schema (PGlite, in memory).
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { ApplicationFailure } from '@temporalio/common';
import { createLogger, newId } from '@kino/infra';
import { migrateToLatest, type Db } from '@kino/database';
import { openPgliteDatabase } from '@kino/database/testing';
import { planLadder } from '../ladder.ts';
import type { EncodingParameters } from '@kino/proto/contract';
import type { WebhookPayload } from '@kino/proto/contract';
import type { EncodeOutcome, RenditionResult, SourceProbe } from '../activity-types.ts';
import { createVideoRecordActivities } from './video-records.ts';
import { createWebhookActivities } from './webhooks.ts';
import { pinnedLookup, type HostResolver } from '@kino/webhooks';

const logger = createLogger('test', 'silent');
let db: Db;
let orgId: string;
let envId: string;
let records: ReturnType<typeof createVideoRecordActivities>;

const parameters: EncodingParameters = {
  maxEdgeLength: -1,
  maxFrameRate: -1,
  pixelFormat: 'yuv420p',
  rateControlMode: 'variableBitrate' as const,
  twoPassVBREncoding: false,
  compressionRatio: 'veryfast',
  audioCodec: 'aac',
};
const probe: SourceProbe = {
  audioTracks: [],
  durationSeconds: 4.02,
  videoDurationSeconds: 4.02,
  audioChannels: 2,
  audioSampleRate: 48000,
  width: 1280,
  height: 720,
  frameRate: 30,
  frameCount: 120,
  videoCodec: 'h264',
  pixelFormat: 'yuv420p',
  dynamicRange: 'sdr',
  hasAudio: true,
  audioCodec: 'aac',
  formatName: 'mov',
  sizeBytes: 1000,
};

function resultsFor(source: { width: number; height: number }): RenditionResult[] {
  return planLadder('standard', { ...source, frameRate: 30, hasAudio: true }, parameters).map((plan) => {
    const outcome: EncodeOutcome = {
      key: plan.key,
      width: plan.width,
      height: plan.height,
      codecs: 'avc1.64001f,mp4a.40.2',
      bandwidth: plan.videoBitrateKbps * 1300,
      averageBandwidth: plan.videoBitrateKbps * 1100,
      segmentCount: 1,
      frameCount: 120,
      bytesWritten: 1,
      nodeId: 'node_a',
      timings: { prepareMs: 0, startupMs: 0, encodeMs: 0, finishMs: 0 },
    };
    return { plan, outcome };
  });
}

async function insertVideo(): Promise<string> {
  const id = newId('vid');
  await db
    .insertInto('videos')
    .values({
      id,
      org_id: orgId,
      env_id: envId,
      name: 'clip',
      description: null,
      status: 'transcoding',
      failure_reason: null,
      storage_path: `uploads/${orgId}/${envId}/${id}/clip.mp4`,
      video_quality: 'standard',
      allow_public_access: true,
      parameters: JSON.stringify(parameters),
      duration_seconds: null,
      source_width: null,
      source_height: null,
      source_frame_rate: null,
      thumbnail_key: null,
      ready_at: null,
      deleted_at: null,
      delete_reason: null,
    })
    .execute();
  return id;
}

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
  orgId = newId('org');
  envId = newId('env');
  await db.insertInto('organizations').values({ id: orgId, name: 'o' }).execute();
  await db
    .insertInto('environments')
    .values([
      { id: envId, org_id: orgId, name: 'e' },
      { id: `${envId}x`, org_id: orgId, name: 'other' },
    ])
    .execute();
  records = createVideoRecordActivities({ db, logger });
});

afterAll(async () => {
  await db?.destroy();
});

test('loadVideoJob reads what processing needs; null for an unknown video', async () => {
  const videoId = await insertVideo();
  const job = await records.loadVideoJob(videoId);
  assert.deepEqual(job, {
    videoId,
    storagePath: `uploads/${orgId}/${envId}/${videoId}/clip.mp4`,
    quality: 'standard',
    parameters,
    status: 'transcoding',
    deleted: false,
  });
  assert.equal(await records.loadVideoJob('vid_missing'), null);
});

test('markVideoReady records the ladder and the source, and a second run replaces the ladder', async () => {
  const videoId = await insertVideo();
  assert.equal(
    await records.markVideoReady({
      videoId,
      probe,
      renditions: resultsFor(probe),
      thumbnailKey: `videos/${videoId}/thumbs/default.jpg`,
    }),
    true,
  );
  const video = await db.selectFrom('videos').selectAll().where('id', '=', videoId).executeTakeFirstOrThrow();
  assert.equal(video.status, 'ready');
  assert.equal(video.duration_seconds, 4.02);
  assert.equal(video.source_width, 1280);
  assert.equal(video.thumbnail_key, `videos/${videoId}/thumbs/default.jpg`);
  assert.ok(video.ready_at);
  const rows = await db
    .selectFrom('renditions')
    .selectAll()
    .where('video_id', '=', videoId)
    .orderBy('short_edge_pixels')
    .execute();
  assert.deepEqual(
    rows.map((r) => [
      r.key,
      r.width,
      r.height,
      r.video_bitrate_kbps,
      r.audio_bitrate_kbps,
      r.audio_format,
      r.bandwidth,
      r.codecs,
    ]),
    [
      ['360p', 640, 360, 500, 128, 'aac', 650_000, 'avc1.64001f,mp4a.40.2'],
      ['480p', 854, 480, 1000, 128, 'aac', 1_300_000, 'avc1.64001f,mp4a.40.2'],
      ['720p', 1280, 720, 2500, 128, 'aac', 3_250_000, 'avc1.64001f,mp4a.40.2'],
    ],
  );

  // A retried video (smaller source this time) ends with only its new ladder.
  assert.equal(
    await records.markVideoReady({
      videoId,
      probe,
      renditions: resultsFor({ width: 640, height: 360 }),
      thumbnailKey: null,
    }),
    true,
  );
  const again = await db.selectFrom('renditions').select('key').where('video_id', '=', videoId).execute();
  assert.deepEqual(
    again.map((r) => r.key),
    ['360p'],
  );
});

test('markVideoReady changes nothing for a video deleted meanwhile', async () => {
  const videoId = await insertVideo();
  await db.updateTable('videos').set({ deleted_at: new Date() }).where('id', '=', videoId).execute();
  assert.equal(
    await records.markVideoReady({ videoId, probe, renditions: resultsFor(probe), thumbnailKey: null }),
    false,
  );
  const video = await db
    .selectFrom('videos')
    .select(['status', 'ready_at'])
    .where('id', '=', videoId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(video, { status: 'transcoding', ready_at: null });
  assert.deepEqual(await db.selectFrom('renditions').select('key').where('video_id', '=', videoId).execute(), []);
});

test('markVideoFailed keeps the reason', async () => {
  const videoId = await insertVideo();
  await records.markVideoFailed({ videoId, reason: 'the file has no video stream' });
  const video = await db
    .selectFrom('videos')
    .select(['status', 'failure_reason'])
    .where('id', '=', videoId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(video, { status: 'failed', failure_reason: 'the file has no video stream' });
  // A retry of the activity after its commit changes nothing: the first reason stays.
  await records.markVideoFailed({ videoId, reason: 'activity retried' });
  assert.equal(
    (await db.selectFrom('videos').select('failure_reason').where('id', '=', videoId).executeTakeFirstOrThrow())
      .failure_reason,
    'the file has no video stream',
  );
});

test('markVideoFailed fails only a live video in transcoding: a ready one keeps its ladder, a deleted one is left as it was', async () => {
  const ready = await insertVideo();
  assert.equal(
    await records.markVideoReady({ videoId: ready, probe, renditions: resultsFor(probe), thumbnailKey: null }),
    true,
  );
  await records.markVideoFailed({ videoId: ready, reason: 'late failure' });
  const readyRow = await db
    .selectFrom('videos')
    .select(['status', 'failure_reason'])
    .where('id', '=', ready)
    .executeTakeFirstOrThrow();
  assert.deepEqual(readyRow, { status: 'ready', failure_reason: null });
  assert.equal((await db.selectFrom('renditions').select('key').where('video_id', '=', ready).execute()).length, 3);

  const deleted = await insertVideo();
  await db.updateTable('videos').set({ deleted_at: new Date() }).where('id', '=', deleted).execute();
  await records.markVideoFailed({ videoId: deleted, reason: 'failed after delete' });
  const deletedRow = await db
    .selectFrom('videos')
    .select(['status', 'failure_reason'])
    .where('id', '=', deleted)
    .executeTakeFirstOrThrow();
  assert.deepEqual(deletedRow, { status: 'transcoding', failure_reason: null });
});

test("webhook subscriptions: the video's environment, the event asked for, not deleted", async () => {
  const videoId = await insertVideo();
  const hook = (id: string, env: string, events: string[], deleted = false) => ({
    id,
    org_id: orgId,
    env_id: env,
    url: 'http://127.0.0.1:9/hook',
    events: JSON.stringify(events),
    secret: 'whsec_c2VjcmV0',
    deleted_at: deleted ? new Date() : null,
  });
  await db
    .insertInto('webhooks')
    .values([
      hook('whk_both', envId, ['video.processing.completed', 'video.processing.failed']),
      hook('whk_failed', envId, ['video.processing.failed']),
      hook('whk_other_env', `${envId}x`, ['video.processing.completed']),
      hook('whk_deleted', envId, ['video.processing.completed'], true),
      // No list at all means no filter: what a client that sends no `events` asks for.
      hook('whk_every', envId, []),
    ])
    .execute();
  assert.deepEqual(
    (await records.listWebhookSubscriptions({ videoId, event: 'video.processing.completed' }))
      .map((s) => s.webhookId)
      .sort(),
    ['whk_both', 'whk_every'],
  );
  assert.deepEqual(
    (await records.listWebhookSubscriptions({ videoId, event: 'video.processing.failed' }))
      .map((s) => s.webhookId)
      .sort(),
    ['whk_both', 'whk_every', 'whk_failed'],
  );
});

test('sendWebhook POSTs the payload signed per Standard Webhooks; a non-2xx answer is retried; a deleted webhook is final', async () => {
  const secretKey = Buffer.from('0123456789abcdef0123456789abcdef');
  const webhookId = newId('whk');
  await db
    .insertInto('webhooks')
    .values({
      id: webhookId,
      org_id: orgId,
      env_id: envId,
      url: 'http://127.0.0.1:9/hook',
      events: '[]',
      secret: `whsec_${secretKey.toString('base64')}`,
      deleted_at: null,
    })
    .execute();
  const sent: Array<{ url: string; init: RequestInit }> = [];
  let status = 204;
  const fakeFetch = ((url: string, init: RequestInit) => {
    sent.push({ url, init });
    return Promise.resolve(new Response(null, { status }));
  }) as unknown as typeof fetch;
  // The dev stack's setting: this endpoint is on loopback (the next test is production's).
  const { sendWebhook } = createWebhookActivities({
    db,
    logger,
    fetch: fakeFetch,
    webhookDestinations: { allowPrivate: true },
  });
  const payload: WebhookPayload = {
    event: 'video.processing.failed',
    videoId: 'vid_1',
    status: 'failed',
    timestamp: '2026-11-21T06:00:00.000Z',
    data: { reason: 'x' },
  };

  assert.deepEqual(await sendWebhook({ webhookId, messageId: 'msg_1', payload }), { status: 204 });
  const [{ url, init }] = sent as [{ url: string; init: RequestInit }];
  const headers = init.headers as Record<string, string>;
  assert.equal(url, 'http://127.0.0.1:9/hook');
  assert.equal(init.method, 'POST');
  assert.deepEqual(JSON.parse(init.body as string), payload);
  assert.equal(headers['webhook-id'], 'msg_1');
  const expected = createHmac('sha256', secretKey)
    .update(`msg_1.${headers['webhook-timestamp']}.${init.body as string}`)
    .digest('base64');
  assert.equal(headers['webhook-signature'], `v1,${expected}`);

  status = 500;
  await assert.rejects(sendWebhook({ webhookId, messageId: 'msg_1', payload }), (error: Error) => {
    assert.ok(!(error instanceof ApplicationFailure && error.nonRetryable));
    assert.match(error.message, /answered 500/);
    return true;
  });

  await db.updateTable('webhooks').set({ deleted_at: new Date() }).where('id', '=', webhookId).execute();
  await assert.rejects(sendWebhook({ webhookId, messageId: 'msg_1', payload }), (error: unknown) => {
    assert.ok(error instanceof ApplicationFailure);
    assert.equal(error.type, 'WebhookGone');
    assert.equal(error.nonRetryable, true);
    return true;
  });
});

test('sendWebhook in production reaches public addresses only, checked after DNS, and connects to the address it checked', async () => {
  // A real receiver on loopback: what a webhook aimed at the control plane's own network would reach.
  let received = 0;
  const receiver = createServer((req, res) => {
    received += 1;
    req.resume();
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  const hook = async (url: string) => {
    const id = newId('whk');
    await db
      .insertInto('webhooks')
      .values({
        id,
        org_id: orgId,
        env_id: envId,
        url,
        events: '[]',
        secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
        deleted_at: null,
      })
      .execute();
    return id;
  };
  const payload: WebhookPayload = {
    event: 'video.processing.failed',
    videoId: 'vid_1',
    status: 'failed',
    timestamp: '2026-11-21T06:00:00.000Z',
    data: {},
  };
  const lookups: string[] = [];
  const resolve: HostResolver = async (hostname) => {
    lookups.push(hostname);
    if (hostname === 'loopback.test') return [{ address: '127.0.0.1', family: 4 }];
    if (hostname === 'metadata.test') return [{ address: '169.254.169.254', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  try {
    const production = createWebhookActivities({ db, logger, webhookDestinations: { allowPrivate: false, resolve } });
    for (const url of [
      `http://127.0.0.1:${port}/hook`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://loopback.test:${port}/hook`,
      'http://metadata.test/latest/meta-data/',
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      const webhookId = await hook(url);
      await assert.rejects(
        production.sendWebhook({ webhookId, messageId: 'msg_p', payload }),
        (error: unknown) => {
          assert.ok(error instanceof ApplicationFailure, String(error));
          assert.equal(error.type, 'WebhookDestinationRefused');
          assert.equal(error.nonRetryable, true);
          return true;
        },
        url,
      );
    }
    assert.equal(received, 0, 'nothing reached the loopback receiver');
    // A name that does not resolve may later: retried, not final.
    await assert.rejects(
      production.sendWebhook({ webhookId: await hook('http://gone.test/hook'), messageId: 'msg_p', payload }),
      (error: Error) => {
        assert.ok(!(error instanceof ApplicationFailure && error.nonRetryable));
        assert.match(error.message, /does not resolve/);
        return true;
      },
    );
    assert.ok(lookups.includes('loopback.test'));
    // One lookup per delivery, and the connection is pinned to its answer (next test): a DNS answer that
    // changes between the check and the connection (rebinding) is never asked for.
    lookups.length = 0;
    const sent: Array<{ dispatcher?: unknown }> = [];
    const rebinding: HostResolver = async (hostname) => {
      lookups.push(hostname);
      return [{ address: lookups.length === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    };
    const pinned = createWebhookActivities({
      db,
      logger,
      fetch: async (_url, init) => {
        sent.push({ dispatcher: init.dispatcher });
        return new Response(null, { status: 204 });
      },
      webhookDestinations: { allowPrivate: false, resolve: rebinding },
    });
    await pinned.sendWebhook({ webhookId: await hook('http://rebind.test/hook'), messageId: 'msg_r', payload });
    assert.deepEqual(lookups, ['rebind.test']);
    assert.ok(sent[0]?.dispatcher instanceof Agent, 'the request goes through the pinned dispatcher');

    // The dev stack's setting: the same loopback receiver gets the delivery.
    const dev = createWebhookActivities({ db, logger, webhookDestinations: { allowPrivate: true } });
    assert.deepEqual(
      await dev.sendWebhook({ webhookId: await hook(`http://127.0.0.1:${port}/hook`), messageId: 'msg_d', payload }),
      { status: 204 },
    );
    assert.equal(received, 1);
  } finally {
    receiver.close();
  }
});

test('a pinned lookup connects to the checked address whatever the name', async () => {
  const receiver = createServer((req, res) => res.writeHead(200).end(req.headers.host));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]) } });
  try {
    // No resolver knows this name: only the pinned address can have answered.
    const response = await undiciFetch(`http://pinned.invalid:${port}/`, { dispatcher });
    assert.equal(await response.text(), `pinned.invalid:${port}`);
  } finally {
    await dispatcher.close();
    receiver.close();
  }
});
