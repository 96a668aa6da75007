// Live streams' ingest and events on the shared farm (issue 56): a private stream's own path plays
// with a token whose subject is the stream, and refuses none or another stream's; the live stream
// webhooks (`active`, `disconnected` while the reconnect window is open, `idle` once it has passed,
// `recording.ready` naming the recording) reach a receiver that checks their signatures; an SRT
// caller with a good key is recorded as an RTMP publisher is, one with a wrong or disabled key is
// refused, one back within the window continues its broadcast, and one asking for encryption is
// refused. Each publish is a few seconds of a 320x180 testsrc from a real ffmpeg.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { waitFor } from '@kino/dev';
import { getLiveStream } from '@kino/database/repositories';
import type { LiveStream } from '@kino/sdk';
import { registerWebhook, startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './farm.ts';
import type { FarmTenant } from './farm.ts';
import { joinSharedFarm } from './shared-farm.ts';
import { programDateTimeOffsetsMs, publishTestsrc, startPublisher } from '@kino/test/support/live-publisher';

let farm: FarmTenant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  [farm, receiver] = await Promise.all([joinSharedFarm('live-ingest'), startWebhookReceiver()]);
  receiver.secret = await registerWebhook(farm, receiver.url);
});

afterAll(async () => {
  await farm?.stop();
  await receiver?.close();
});

function createStream(name: string, settings: { allowPublicAccess: boolean; reconnectWindowSeconds: number }) {
  return farm.kino.liveStreams.create(farm.orgId, farm.envId, { name, latency: 'standard', ...settings });
}

/** The signed delivery of `event` of a stream, once it has come. */
function eventOf(stream: LiveStream, event: string, timeoutMs = 30_000): Promise<ReceivedWebhook> {
  return waitFor(
    `the ${event} webhook of ${stream.liveStreamId}`,
    () =>
      receiver.received.find(
        (hook) =>
          hook.signatureValid &&
          hook.payload.event === event &&
          (hook.payload as { liveStreamId?: string }).liveStreamId === stream.liveStreamId,
      ),
    { timeoutMs, intervalMs: 100 },
  );
}

/** The token a signed URL carries. */
function tokenOf(signedUrl: string): string {
  return new URL(signedUrl).searchParams.get('token')!;
}

async function statusOf(url: string): Promise<{ status: number; code?: string; text: string }> {
  const response = await fetch(url);
  const text = await response.text();
  const code = response.status === 200 ? undefined : (JSON.parse(text) as { code?: string }).code;
  return { status: response.status, ...(code ? { code } : {}), text };
}

describe('a private live stream with its webhooks', () => {
  it('sends active, disconnected within the window, idle after it, recording.ready; plays on its path with its own token', async () => {
    const stream = await createStream('private', { allowPublicAccess: false, reconnectWindowSeconds: 2 });
    assert.equal(stream.playback.master, null, 'a private stream has no public playback URL');
    const published = await publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, 6, { size: '320x180' });
    assert.equal(published.exitCode, 0, published.stderr);

    const active = await eventOf(stream, 'live_stream.active');
    const videoId = active.payload.videoId!;
    assert.match(videoId, /^vid_/);
    assert.equal(active.payload.status, 'active');
    assert.equal(active.payload.data.liveStreamId, stream.liveStreamId);
    assert.equal(active.payload.data.activeVideoId, videoId);
    assert.equal(active.payload.data.streamKey, undefined, 'the key stays out of webhook bodies');
    assert.ok(!active.body.includes(stream.streamKey), 'the key is nowhere in the body');

    // The publisher is gone: the window is open (the stream still active), then it passes (idle).
    const disconnected = await eventOf(stream, 'live_stream.disconnected');
    assert.equal(disconnected.payload.videoId, videoId);
    assert.equal(disconnected.payload.status, 'active', 'within the window the broadcast goes on');
    const idle = await eventOf(stream, 'live_stream.idle');
    assert.equal(idle.payload.videoId, videoId);
    assert.equal(idle.payload.status, 'idle');
    assert.equal(idle.payload.data.activeVideoId, null);
    const windowMs = Date.parse(idle.payload.timestamp) - Date.parse(disconnected.payload.timestamp);
    assert.ok(windowMs >= 1900, `idle came ${windowMs} ms after disconnected, before the 2 s window passed`);

    const ready = await eventOf(stream, 'live_stream.recording.ready', 60_000);
    assert.equal(ready.payload.videoId, videoId, 'the recording is the broadcast’s video');
    assert.equal((await farm.kino.videos.get(farm.orgId, videoId)).status.ready, true);

    // The stream's own path in the private family plays its last broadcast with a token for the
    // stream, master and rendition alike; none, or another stream's, is refused as for videos.
    const other = await createStream('another', { allowPublicAccess: false, reconnectWindowSeconds: 0 });
    const [own, others] = await Promise.all([
      farm.kino.liveStreams.playbackUrl(farm.orgId, stream.liveStreamId),
      farm.kino.liveStreams.playbackUrl(farm.orgId, other.liveStreamId),
    ]);
    const master = `${farm.deliveryUrl}/v1/private/${stream.liveStreamId}/master.m3u8`;
    assert.equal(own.signed_url, `${master}?token=${tokenOf(own.signed_url)}`);
    const opened = await statusOf(own.signed_url);
    assert.equal(opened.status, 200, opened.text);
    const variant = opened.text.split('\n').find((line) => line && !line.startsWith('#'))!;
    assert.match(variant, /token=/, 'the master carries the token on to its renditions');
    const rendition = await statusOf(new URL(variant, master).toString());
    assert.equal(rendition.status, 200, rendition.text);
    assert.match(rendition.text, /#EXT-X-ENDLIST/);
    assert.deepEqual(await statusOf(master).then(({ status, code }) => ({ status, code })), {
      status: 401,
      code: 'token_required',
    });
    const withOthers = await statusOf(`${master}?token=${tokenOf(others.signed_url)}`);
    assert.deepEqual(
      { status: withOthers.status, code: withOthers.code },
      { status: 403, code: 'token_video_mismatch' },
    );
    const renditionWithOthers = new URL(variant.replace(tokenOf(own.signed_url), tokenOf(others.signed_url)), master);
    assert.equal((await statusOf(renditionWithOthers.toString())).status, 403);
  });
});

describe('SRT', () => {
  it('starts a broadcast for a good key; refuses a wrong key and a disabled stream’s before any media', async () => {
    const [good, disabled] = await Promise.all([
      createStream('srt', { allowPublicAccess: true, reconnectWindowSeconds: 0 }),
      createStream('srt disabled', { allowPublicAccess: true, reconnectWindowSeconds: 0 }),
    ]);
    await farm.kino.liveStreams.disable(farm.orgId, disabled.liveStreamId);
    assert.match(good.ingest.srt, new RegExp(`^srt://[^?]+\\?streamid=${good.streamKey}$`));
    const wrongKey = new URL(good.ingest.srt);
    wrongKey.searchParams.set('streamid', `sk_${'x'.repeat(40)}`);
    // Long enough to be recorded on a loaded machine: ingest republishes a caller once its stream has
    // been read a while (ffmpeg/src/srt-relay.ts), and a broadcast over before the farm's encoder
    // attached fails.
    const caller = startPublisher(good.ingest.srt, 10, { size: '320x180', format: 'mpegts' });
    const [published, wrong, refused] = await Promise.all([
      caller.done,
      publishTestsrc(wrongKey.toString(), 5, { size: '320x180', format: 'mpegts' }),
      publishTestsrc(disabled.ingest.srt, 5, { size: '320x180', format: 'mpegts' }),
    ]);
    assert.equal(published.exitCode, 0, published.stderr);
    assert.notEqual(wrong.exitCode, 0, 'a caller with a key no stream has is refused');
    assert.notEqual(refused.exitCode, 0, 'a caller with a disabled stream’s key is refused');
    const none = await getLiveStream(farm.db, disabled.liveStreamId);
    assert.deepEqual([none?.active_video_id, none?.last_video_id], [null, null], 'no broadcast was started');

    // The good caller's stream came in as an RTMP publisher's: a broadcast of the stream, begun once
    // its media reached ingest's RTMP server (the republisher publishes after reading the caller's).
    const ended = await waitFor(
      'the SRT broadcast to end',
      async () => {
        const row = await getLiveStream(farm.db, good.liveStreamId);
        return row?.active_video_id === null && row.last_video_id ? row : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    const videoId = ended.last_video_id!;
    assert.equal((await farm.kino.videos.get(farm.orgId, videoId)).liveStreamId, good.liveStreamId);
    // Each segment dated by its first frame's push from the caller, though ingest republished the
    // caller's stream only once its listener and republisher had probed it, seconds later.
    await farm.waitForStatus(videoId, 'ready', 60_000);
    const { key } = (await farm.kino.videos.get(farm.orgId, videoId)).encodings.at(-1)!;
    const recording = await (await fetch(`${farm.deliveryUrl}/${videoId}/${key}.m3u8`)).text();
    // From the caller's first frame as its own progress reports timed it (0.1 s apart): after its
    // handshake and the key's check, which took over a second on a loaded machine.
    const offsets = programDateTimeOffsetsMs(recording, caller.pushedAt(0)!);
    assert.ok(
      offsets.every((ms) => ms >= -250 && ms <= 1000),
      `EXT-X-PROGRAM-DATE-TIME minus the push of each segment's first frame: ${offsets.join(', ')} ms`,
    );
  });

  it('continues the same broadcast when its caller comes back within the window', async () => {
    // 3 s, a gap of 2 s, 3 s again, within a window of 8 s: one broadcast, as over RTMP. (Ingest's
    // republisher reads a few seconds of the caller's stream before it publishes: the window covers
    // the gap between its two RTMP sessions, which is longer than the caller's.)
    const stream = await createStream('srt reconnect', { allowPublicAccess: true, reconnectWindowSeconds: 8 });
    const first = await publishTestsrc(stream.ingest.srt, 3, { size: '320x180', format: 'mpegts' });
    assert.equal(first.exitCode, 0, first.stderr);
    const videoId = await waitFor(
      'the broadcast the caller began',
      async () => (await getLiveStream(farm.db, stream.liveStreamId))?.active_video_id ?? undefined,
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the gap the test is about, not a wait for a condition
    const again = await publishTestsrc(stream.ingest.srt, 3, { size: '320x180', format: 'mpegts' });
    assert.equal(again.exitCode, 0, again.stderr);
    const ended = await waitFor(
      'the broadcast to end after the window',
      async () => {
        const row = await getLiveStream(farm.db, stream.liveStreamId);
        return row?.active_video_id === null && row.last_video_id ? row : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    assert.equal(ended.last_video_id, videoId, 'the broadcast the caller began is the one that ended');
    const broadcasts = await farm.kino.videos.list(farm.orgId, farm.envId, { liveStreamId: stream.liveStreamId });
    assert.deepEqual(
      broadcasts.videos.map((video) => video.id),
      [videoId],
      'one broadcast for both connections',
    );
    // And both connections' pictures are in it: more than the first's 3 s. Not all 6: each SRT
    // connection loses its first frames, up to the caller's first keyframe (open, live.md "SRT").
    await farm.waitForStatus(videoId, 'ready', 60_000);
    const recording = await farm.kino.videos.get(farm.orgId, videoId);
    const seconds = recording.durationSeconds;
    assert.ok(seconds > 3.5 && seconds <= 6.05, `a recording of ${seconds} s from two connections of 3 s`);
  });

  it('refuses a caller asking for encryption (a passphrase): not supported, and no broadcast', async () => {
    const stream = await createStream('srt passphrase', { allowPublicAccess: true, reconnectWindowSeconds: 0 });
    const encrypted = new URL(stream.ingest.srt);
    encrypted.searchParams.set('passphrase', 'a-passphrase-of-20-chars');
    const refused = await publishTestsrc(encrypted.toString(), 3, { size: '320x180', format: 'mpegts' });
    assert.notEqual(refused.exitCode, 0, 'the caller fails at its handshake');
    const row = await getLiveStream(farm.db, stream.liveStreamId);
    assert.deepEqual([row?.active_video_id, row?.last_video_id], [null, null], 'no broadcast was started');
  });
});
