// End to end on real processes: an upload through a presigned URL becomes a playable HLS ladder
// through a real Temporal server, `kino orchestrator` and two `kino node start` processes; and a
// corrupt MP4, or an MP4 container with garbage inside, ends `failed` with a reason, the failed webhook, no leftovers.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { waitFor } from '@kino/dev';
import { objectKeys } from '@kino/proto/contract';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import {
  registerWebhook,
  startFarm,
  startWebhookReceiver,
  type Farm,
  type ReceivedWebhook,
  type WebhookReceiver,
} from './farm.ts';

const run = promisify(execFile);

let farm: Farm;
let receiver: WebhookReceiver;
let workDir: string;
let clipPath: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-farm-'));
  [farm, receiver, clipPath] = await Promise.all([
    startFarm(),
    startWebhookReceiver(),
    makeClip({
      seconds: 4,
      width: 1280,
      height: 720,
      fps: 30,
      audio: true,
      path: join(tmpdir(), `kino-farm-clip-${process.pid}.mp4`),
    }),
  ]);
  receiver.secret = await registerWebhook(farm, receiver.url);
  assert.match(receiver.secret, /^whsec_/);
});

afterAll(async () => {
  await farm?.stop();
  await receiver?.close();
  await rm(workDir, { recursive: true, force: true });
  await rm(clipPath, { force: true });
});

/** The accepted delivery of `event` for a video (`after`: the first one after that many deliveries). */
function webhookFor(videoId: string | null, event: string, after = 0): Promise<ReceivedWebhook> {
  return waitFor(
    `the ${event} webhook of ${videoId}`,
    () =>
      receiver.received
        .slice(after)
        .find((w) => w.payload.videoId === videoId && w.payload.event === event && !w.refused),
    { timeoutMs: 60_000 },
  );
}

/** The video the first test makes ready: the lifecycle events' test goes on with it. */
let readyVideoId: string;

/** The pending activities of a video's workflow, as Temporal reports them. */
async function pendingActivities(videoId: string) {
  const description = await farm.temporal.workflow.getHandle(`video:${videoId}`).describe();
  return (description.raw.pendingActivities ?? []).map((a) => ({
    type: a.activityType?.name ?? '',
    attempt: a.attempt ?? 0,
    lastFailure: a.lastFailure?.message ?? '',
  }));
}

interface Variant {
  attributes: Record<string, string>;
  uri: string;
}

function parseMaster(text: string): Variant[] {
  const lines = text.trim().split('\n');
  const variants: Variant[] = [];
  lines.forEach((line, index) => {
    if (!line.startsWith('#EXT-X-STREAM-INF:')) return;
    const attributes: Record<string, string> = {};
    for (const match of line.slice('#EXT-X-STREAM-INF:'.length).matchAll(/([A-Z-]+)=("[^"]*"|[^,]*)/g)) {
      attributes[match[1]!] = match[2]!.replace(/^"|"$/g, '');
    }
    variants.push({ attributes, uri: lines[index + 1]! });
  });
  return variants;
}

/** RFC 6381 `avc1.PPCCLL` read from the avcC box of an init segment. */
function avcCodecOf(init: Buffer): string {
  const at = init.indexOf('avcC');
  assert.ok(at > 0, 'init segment has an avcC box');
  const hex = (byte: number) => byte.toString(16).padStart(2, '0');
  return `avc1.${hex(init[at + 5]!)}${hex(init[at + 6]!)}${hex(init[at + 7]!)}`;
}

async function probeStreams(
  path: string,
): Promise<Array<{ codec_type: string; codec_name: string; profile?: string; width?: number; height?: number }>> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_type,codec_name,profile,width,height',
    '-of',
    'json',
    path,
  ]);
  return (
    JSON.parse(stdout) as {
      streams: Array<{ codec_type: string; codec_name: string; profile?: string; width?: number; height?: number }>;
    }
  ).streams;
}

test('no node online: the video stays transcoding; when nodes join it becomes a ladder that plays first to last frame', async () => {
  const sourceFrames = await countFramesInFile(clipPath);
  const videoId = await farm.submitVideo(await readFile(clipPath), { quality: 'standard' });

  // The workflow has asked for a node and been told there is none, more than once.
  const waiting = await waitFor(
    'the workflow to be waiting for a node',
    async () => (await pendingActivities(videoId)).find((a) => a.type === 'waitForNodeCapacity' && a.attempt >= 2),
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.match(waiting.lastFailure, /waiting for an encode node/);
  const row = await farm.db.selectFrom('videos').select(['status']).where('id', '=', videoId).executeTakeFirstOrThrow();
  assert.equal(row.status, 'transcoding');

  // The endpoint refuses the first completed delivery: it must come again.
  receiver.failEvent = 'video.processing.completed';
  receiver.failNext = 1;
  await Promise.all([farm.startNode('a'), farm.startNode('b')]);
  await farm.waitForStatus(videoId, 'ready', 180_000);

  // Every rendition, and the master, decode from first to last frame with the source's frame count.
  const dir = join(workDir, videoId);
  const keys = await farm.downloadVideo(videoId, dir);
  assert.ok(keys.includes(objectKeys.master(videoId)));
  assert.ok(keys.includes(objectKeys.thumbnail(videoId, 'default.jpg')));
  const variants = parseMaster(await readFile(join(dir, 'hls', 'master.m3u8'), 'utf8'));
  assert.deepEqual(
    variants.map((v) => v.uri),
    ['360p/playlist.m3u8', '480p/playlist.m3u8', '720p/playlist.m3u8'],
  );
  assert.equal(await countDecodedFrames(join(dir, 'hls', 'master.m3u8')), sourceFrames);

  const expectedSizes: Record<string, string> = { '360p': '640x360', '480p': '854x480', '720p': '1280x720' };
  for (const variant of variants) {
    const key = variant.uri.split('/')[0]!;
    const renditionDir = join(dir, 'hls', key);
    assert.equal(
      await countDecodedFrames(join(renditionDir, 'playlist.m3u8')),
      sourceFrames,
      `${key} decodes every frame`,
    );

    // RESOLUTION, CODECS, BANDWIDTH and AVERAGE-BANDWIDTH match the files themselves.
    const streams = await probeStreams(join(renditionDir, 'playlist.m3u8'));
    const video = streams.find((s) => s.codec_type === 'video')!;
    const audio = streams.find((s) => s.codec_type === 'audio')!;
    assert.equal(`${video.width}x${video.height}`, expectedSizes[key]);
    assert.equal(variant.attributes.RESOLUTION, expectedSizes[key]);
    assert.equal(audio.codec_name, 'aac');
    assert.equal(audio.profile, 'LC');
    const init = await readFile(join(renditionDir, 'init.mp4'));
    assert.equal(variant.attributes.CODECS, `${avcCodecOf(init)},mp4a.40.2`);
    assert.equal(variant.attributes['FRAME-RATE'], '30.000');

    const playlist = (await readFile(join(renditionDir, 'playlist.m3u8'), 'utf8')).split('\n');
    let peak = 0;
    let bits = 0;
    let seconds = 0;
    for (let i = 0; i < playlist.length; i += 1) {
      const extinf = /^#EXTINF:([\d.]+)/.exec(playlist[i]!);
      if (!extinf) continue;
      const size = (await readFile(join(renditionDir, playlist[i + 1]!))).length * 8;
      const duration = Number(extinf[1]);
      peak = Math.max(peak, size / duration);
      bits += size;
      seconds += duration;
    }
    const bandwidth = Number(variant.attributes.BANDWIDTH);
    const average = Number(variant.attributes['AVERAGE-BANDWIDTH']);
    assert.ok(
      Math.abs(bandwidth - peak) / peak < 0.02,
      `${key} BANDWIDTH ${bandwidth} ~ measured peak ${Math.round(peak)}`,
    );
    assert.ok(
      Math.abs(average - bits / seconds) / (bits / seconds) < 0.02,
      `${key} AVERAGE-BANDWIDTH ${average} ~ ${Math.round(bits / seconds)}`,
    );
  }

  // The video's details, as the API shows them, and what it keeps about the source.
  const details = await farm.kino.videos.get(farm.orgId, videoId);
  assert.deepEqual(details.status, { ready: true, transcoding: false, failed: false });
  assert.ok(Math.abs(details.durationSeconds - 4) < 0.1);
  assert.equal(details.duration, '0:04');
  assert.deepEqual(
    details.encodings.map((e) => [
      e.key,
      e.shortEdgePixels,
      e.shortEdgeIsWidth,
      e.videoStreamBitrate,
      e.audioStreamBitrate,
      e.audioFormat,
      e.compressionRatio,
    ]),
    [
      ['360p', 360, false, 500, 128, 'aac', 'ultrafast'],
      ['480p', 480, false, 1000, 128, 'aac', 'ultrafast'],
      ['720p', 720, false, 2500, 128, 'aac', 'ultrafast'],
    ],
  );
  const video = await farm.db.selectFrom('videos').selectAll().where('id', '=', videoId).executeTakeFirstOrThrow();
  assert.equal(video.source_width, 1280);
  assert.equal(video.source_height, 720);
  assert.equal(video.thumbnail_key, objectKeys.thumbnail(videoId, 'default.jpg'));
  assert.ok(video.ready_at);
  const thumbnail = await farm.storage.head(objectKeys.thumbnail(videoId, 'default.jpg'));
  assert.equal(thumbnail?.contentType, 'image/jpeg');

  // The completed webhook, signed, retried after the endpoint's 503 under the same webhook-id.
  const hook = await webhookFor(videoId, 'video.processing.completed');
  assert.ok(hook.signatureValid, 'signature verifies with the secret');
  const attempts = receiver.received.filter(
    (w) => w.payload.videoId === videoId && w.payload.event === 'video.processing.completed',
  );
  assert.deepEqual(
    attempts.map((w) => w.refused),
    [true, false],
  );
  assert.equal(attempts[0]!.id, attempts[1]!.id, 'a retry keeps its webhook-id');
  assert.equal(attempts[0]!.body, attempts[1]!.body);
  assert.ok(Number(attempts[1]!.timestamp) > Number(attempts[0]!.timestamp), 'each attempt is signed at its own time');
  assert.equal(hook.payload.status, 'ready');
  // data: the details, as GET details answers them.
  assert.deepEqual(hook.payload.data, JSON.parse(JSON.stringify(details)));
  readyVideoId = videoId;
  assert.match(hook.id, /^msg_/);
  assert.ok(Math.abs(Number(hook.timestamp) - Date.now() / 1000) < 120);

  // Every slot was given back.
  const leases = await farm.db.selectFrom('node_leases').select('id').execute();
  assert.deepEqual(leases, []);
});

test('a corrupt MP4 and an MP4 container with garbage inside fail with a reason, send the failed webhook, leave nothing', async () => {
  const whole = await readFile(clipPath);
  // The first half of an MP4 whose index (moov) is at the end: nothing in it can be located.
  const corrupt = whole.subarray(0, Math.floor(whole.length / 2));
  // An MP4's opening (so process's early format check takes it) followed by text: the codec problem
  // is found by the probe, later, and ends in failed. A file that opens no container at all is
  // refused by process itself (422 unsupported_format, test/api/uploads-and-processing.test.ts).
  const garbage = Buffer.concat([
    whole.subarray(0, 32),
    Buffer.from('This is a text file that someone uploaded by mistake.\n'.repeat(200)),
  ]);
  const cases = [
    { name: 'corrupt', body: corrupt, reason: /not a readable video|moov|invalid data|no video|neither a video/i },
    { name: 'garbage', body: garbage, reason: /not a readable video|moov|invalid data|no video|neither a video/i },
  ];
  const videoIds = await Promise.all(cases.map((c) => farm.submitVideo(c.body, { filename: `${c.name}.mp4` })));
  for (const [index, c] of cases.entries()) {
    const videoId = videoIds[index]!;
    const failed = await farm.waitForStatus(videoId, 'failed', 60_000);
    assert.match(failed.failureReason ?? '', c.reason, `${c.name}: ${failed.failureReason}`);
    assert.doesNotMatch(failed.failureReason ?? '', /X-Amz|https?:\/\//, `${c.name}: no presigned URL in the reason`);

    const hook = await webhookFor(videoId, 'video.processing.failed');
    assert.ok(hook.signatureValid, `${c.name}: signature verifies`);
    assert.equal(hook.payload.status, 'failed');
    assert.equal(hook.payload.data.failureReason, failed.failureReason);

    assert.deepEqual(
      await farm.storage.list(objectKeys.videoPrefix(videoId)),
      [],
      `${c.name}: nothing under videos/${videoId}/`,
    );
    // Failed at once: the probe ran once, nothing was retried.
    const history = await farm.temporal.workflow.getHandle(`video:${videoId}`).fetchHistory();
    const probes =
      history.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'probeSource') ?? [];
    assert.equal(probes.length, 1);
    const probeAttempts =
      history.events?.filter(
        (e) => e.activityTaskStartedEventAttributes && e.activityTaskStartedEventAttributes.attempt !== 1,
      ) ?? [];
    assert.deepEqual(probeAttempts, [], `${c.name}: no activity needed a second attempt`);
    const encodes =
      history.events?.filter((e) =>
        e.activityTaskScheduledEventAttributes?.activityType?.name?.startsWith('encodeRendition'),
      ) ?? [];
    assert.equal(encodes.length, 0);
  }
});

test('every lifecycle event reaches the endpoint signed, with the details as data; the delivery log, redelivery and a test event', async () => {
  const videoId = readyVideoId;
  const { kino, orgId, envId } = farm;
  const [webhook] = await kino.webhooks.list(orgId, envId);
  assert.ok(webhook);

  // video.created: sent by the API when process was called, while the video was transcoding.
  const created = await webhookFor(videoId, 'video.created');
  assert.ok(created.signatureValid);
  assert.equal(created.payload.status, 'transcoding');
  assert.deepEqual((created.payload.data as { status: unknown }).status, {
    ready: false,
    transcoding: true,
    failed: false,
  });
  assert.equal(created.payload.data.publicID, videoId);

  // video.updated: data is what PATCH answers.
  let mark = receiver.received.length;
  const updated = await kino.videos.update(orgId, videoId, { videoName: 'Renamed for its event' });
  const updatedHook = await webhookFor(videoId, 'video.updated', mark);
  assert.ok(updatedHook.signatureValid);
  assert.equal(updatedHook.payload.status, 'ready');
  assert.deepEqual(updatedHook.payload.data, JSON.parse(JSON.stringify(updated)));

  // video.caption.ready: data is the details, the new track in them.
  mark = receiver.received.length;
  await kino.videos.addCaption(orgId, videoId, {
    language: 'en',
    content: 'WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n',
  });
  const captionHook = await webhookFor(videoId, 'video.caption.ready', mark);
  assert.ok(captionHook.signatureValid);
  assert.deepEqual(captionHook.payload.data, JSON.parse(JSON.stringify(await kino.videos.get(orgId, videoId))));

  // The log: the completed message's refused attempt (503, its error) and its accepted retry, one webhook-id.
  const log = await kino.webhooks.deliveries(orgId, envId, webhook.id);
  const completedAttempts = log.filter(
    (d) =>
      d.event === 'video.processing.completed' &&
      d.messageId ===
        receiver.received.find(
          (w) => w.payload.videoId === videoId && w.payload.event === 'video.processing.completed',
        )!.id,
  );
  assert.deepEqual(completedAttempts.map((d) => [d.attempt, d.responseStatus, d.error]).reverse(), [
    [1, 503, 'webhook endpoint answered 503'],
    [2, 204, null],
  ]);
  for (const d of log) assert.ok(d.durationMs >= 0 && !Number.isNaN(Date.parse(d.createdAt)));

  // Redelivery: the same webhook-id and body again, the next attempt.
  mark = receiver.received.length;
  const again = await kino.webhooks.redeliver(orgId, envId, webhook.id, completedAttempts[0]!.id);
  assert.deepEqual([again.attempt, again.responseStatus, again.messageId], [3, 204, completedAttempts[0]!.messageId]);
  const redelivered = receiver.received[mark]!;
  assert.equal(redelivered.id, completedAttempts[0]!.messageId);
  assert.ok(redelivered.signatureValid);
  assert.equal(redelivered.body, receiver.received.find((w) => w.id === redelivered.id)!.body);
  const missing = await kino.webhooks.redeliver(orgId, envId, webhook.id, 'whd_NoSuchDelivery01').then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.equal((missing as { code?: string }).code, 'webhook_delivery_not_found');

  // A test event: to this webhook, signed, naming it.
  mark = receiver.received.length;
  const tested = await kino.webhooks.test(orgId, envId, webhook.id);
  assert.deepEqual([tested.event, tested.attempt, tested.responseStatus], ['webhook.test', 1, 204]);
  const testHook = await webhookFor(null, 'webhook.test', mark);
  assert.ok(testHook.signatureValid);
  assert.equal(testHook.id, tested.messageId);
  assert.equal(testHook.payload.data.webhookId, webhook.id);

  // video.deleted: data is the details as they were just before.
  const before = JSON.parse(JSON.stringify(await kino.videos.get(orgId, videoId))) as Record<string, unknown>;
  mark = receiver.received.length;
  await kino.videos.delete(orgId, videoId);
  const deletedHook = await webhookFor(videoId, 'video.deleted', mark);
  assert.ok(deletedHook.signatureValid);
  assert.equal(deletedHook.payload.status, 'deleted');
  assert.deepEqual(deletedHook.payload.data, before);
});
