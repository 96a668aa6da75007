// The whole-encode job with a fake farm and node: what it presigns and asks the node, and the
// outcomes it makes of the node's answer.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { planLadder } from '../ladder.ts';
import type { EncodeOutcome } from '../activity-types.ts';
import { createNodeActivities } from '../activities/node-work.ts';
import { done, encodeInput, environment, harness, logger } from '../testing/fake-node.ts';

test('an encode presigns every output (bound to its type), forwards progress as heartbeats, returns what the node measured, frees the slot', async () => {
  const h = harness({
    encode: (_request, options) => {
      options?.onProgress?.({ percent: 40, encodedSeconds: 1.6, speed: 2 });
      options?.onProgress?.({ percent: 100, encodedSeconds: 4, speed: 2 });
      return Promise.resolve(done);
    },
  });
  const env = environment();
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  const outcome = (await env.run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput)) as EncodeOutcome;

  const [request] = h.requests;
  assert.equal(request!.jobId, 'vid_1-a7-0123456789ab');
  assert.equal(request!.inputUrl, 'http://s3.test/uploads/o/e/u/clip.mp4?X-Amz-Signature=get');
  assert.deepEqual(Object.keys(request!.whole!.outputUrls!).sort(), [
    '360p/init.mp4',
    '360p/playlist.m3u8',
    '360p/seg-00000.m4s',
    '360p/seg-00001.m4s',
    '360p/seg-00002.m4s',
  ]);
  assert.match(
    request!.whole!.outputUrls!['360p/seg-00001.m4s']!,
    /videos\/vid_1\/hls\/360p\/seg-00001\.m4s\?.*type=video\/iso\.segment/,
  );
  assert.match(request!.whole!.outputUrls!['360p/playlist.m3u8']!, /type=application\/vnd\.apple\.mpegurl/);
  assert.equal(request!.whole!.renditions?.length, 1, 'a list of one');
  assert.equal(request!.whole!.renditions?.[0]?.key, '360p');
  assert.equal(request!.whole!.renditions?.[0]?.x264Preset, 'veryfast');
  assert.ok(beats.some((b) => (b as { percent: number }).percent === 40));
  assert.equal(outcome.bandwidth, 760_000);
  assert.equal(outcome.averageBandwidth, 640_000);
  assert.equal(outcome.codecs, 'avc1.64001e,mp4a.40.2');
  assert.equal(outcome.nodeId, 'node_a');
  assert.equal(h.released.length, 1);
  assert.deepEqual(h.lost, []);
});

test('the one encode activity: a list of renditions, `<key>/<file>` URLs, one outcome per rendition in request order', async () => {
  const ladder = planLadder(
    'standard',
    { width: 1280, height: 720, frameRate: 30, hasAudio: true },
    {
      maxEdgeLength: -1,
      maxFrameRate: -1,
      pixelFormat: 'yuv420p',
      rateControlMode: 'variableBitrate',
      twoPassVBREncoding: false,
      compressionRatio: 'veryfast',
      audioCodec: 'aac',
    },
  );
  const h = harness({
    encode: (request) =>
      Promise.resolve({
        ...done,
        // The node may answer in any order: the activity matches results by key.
        renditions: [...request.whole!.renditions!]
          .reverse()
          .map((spec) => ({ ...done.renditions[0]!, key: spec.key!, height: spec.height! })),
      }),
  });
  const outcomes = (await environment().run(createNodeActivities({ ...h, logger }).encodeRenditions, {
    videoId: 'vid_1',
    storagePath: 'uploads/o/e/u/clip.mp4',
    renditions: ladder,
    durationSeconds: 4,
  })) as EncodeOutcome[];
  assert.deepEqual(
    outcomes.map((o) => [o.key, o.height]),
    ladder.map((plan) => [plan.key, plan.height]),
  );
  const [request] = h.requests;
  assert.deepEqual(
    request!.whole!.renditions!.map((r) => r.key),
    ['360p', '480p', '720p'],
  );
  for (const plan of ladder)
    assert.ok(request!.whole!.outputUrls![`${plan.key}/playlist.m3u8`], `${plan.key}/playlist.m3u8`);
  assert.ok(Object.keys(request!.whole!.outputUrls!).every((name) => /^(360p|480p|720p)\//.test(name)));
});
