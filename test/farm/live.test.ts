// Live streams through the farm (issue 56): a real ffmpeg publishes over RTMP to `kino ingest`.
// A wrong key and a disabled stream's key are refused at connect; a good key starts a broadcast (a
// video of the stream's environment that names it and is `live`, the stream `active`), and the publisher's end
// (after the stream's reconnect window, 0 s here) makes the stream idle again; a key reset while
// publishing cuts the publisher off.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { waitFor } from '@kino/dev';
import { getLiveStream } from '@kino/database/repositories';
import type { LiveStream } from '@kino/sdk';
import type { FarmTenant } from './farm.ts';
import { joinSharedFarm } from './shared-farm.ts';

let farm: FarmTenant;

beforeAll(async () => {
  farm = await joinSharedFarm('live');
});

afterAll(async () => {
  await farm?.stop();
});

/** What ffmpeg did with a publish: its exit code and its last lines. */
interface Publish {
  exitCode: number;
  stderr: string;
}

/**
 * Publishes `seconds` of a 30 fps testsrc (its frame counter burnt in) with a tone, in real time
 * (`-re`), H.264 with a keyframe every 2 s and AAC, as OBS and ffmpeg users do.
 */
function publish(rtmpServer: string, key: string, seconds: number): Promise<Publish> {
  const args = [
    '-hide_banner',
    '-nostats',
    '-loglevel',
    'error',
    '-re',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=640x360:rate=30:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-g',
    '60',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-f',
    'flv',
    `${rtmpServer}/${key}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ exitCode: code ?? -1, stderr }));
  });
}

async function createStream(name: string): Promise<LiveStream> {
  return farm.kino.liveStreams.create(farm.orgId, farm.envId, {
    name,
    latency: 'standard',
    allowPublicAccess: true,
    reconnectWindowSeconds: 0,
  });
}

describe('live ingest', () => {
  it('refuses a wrong key and a disabled stream’s key at connect', async () => {
    const stream = await createStream('refused');
    const wrong = await publish(stream.ingest.rtmp, `sk_${'x'.repeat(40)}`, 3);
    assert.notEqual(wrong.exitCode, 0, 'a publish with a key no stream has must fail');
    await farm.kino.liveStreams.disable(farm.orgId, stream.liveStreamId);
    const disabled = await publish(stream.ingest.rtmp, stream.streamKey, 3);
    assert.notEqual(disabled.exitCode, 0, 'a publish to a disabled stream must fail');
    const row = await getLiveStream(farm.db, stream.liveStreamId);
    assert.equal(row?.active_video_id, null);
    assert.equal(row?.last_video_id, null, 'no broadcast was started');
  });

  it('starts a broadcast for a good key, and ends it when the publisher stops', async () => {
    const stream = await createStream('good');
    const publishing = publish(stream.ingest.rtmp, stream.streamKey, 6);
    const active = await waitFor(
      'the stream to be active',
      async () => {
        const now = await farm.kino.liveStreams.get(farm.orgId, stream.liveStreamId);
        return now.status === 'active' ? now : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    const videoId = active.activeVideoId!;
    const running = await farm.kino.videos.get(farm.orgId, videoId);
    assert.equal(running.liveStreamId, stream.liveStreamId);
    assert.equal(running.live, true);
    assert.equal(running.envId, farm.envId);
    const published = await publishing;
    assert.equal(published.exitCode, 0, published.stderr);
    const idle = await waitFor(
      'the stream to be idle',
      async () => {
        const now = await getLiveStream(farm.db, stream.liveStreamId);
        return now?.active_video_id === null ? now : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    assert.equal(idle.last_video_id, videoId);
    const ended = await farm.kino.videos.get(farm.orgId, videoId);
    assert.equal(ended.live, false);
  });

  it('cuts a publisher off when its stream key is reset, and ends its broadcast', async () => {
    const stream = await createStream('reset');
    const startedAt = Date.now();
    const publishing = publish(stream.ingest.rtmp, stream.streamKey, 30);
    const active = await waitFor(
      'the stream to be active',
      async () => {
        const now = await farm.kino.liveStreams.get(farm.orgId, stream.liveStreamId);
        return now.status === 'active' ? now : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    await farm.kino.liveStreams.resetStreamKey(farm.orgId, stream.liveStreamId);
    const cut = await publishing;
    assert.notEqual(cut.exitCode, 0, 'the publisher was cut off');
    assert.ok(Date.now() - startedAt < 20_000, 'cut off long before its 30 s ended');
    const after = await waitFor(
      'the stream to be idle',
      async () => {
        const now = await getLiveStream(farm.db, stream.liveStreamId);
        return now?.active_video_id === null ? now : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    assert.equal(after.last_video_id, active.activeVideoId);
  });
});
