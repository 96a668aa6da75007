// The outcomes an encode makes of the node's answer: matched by key, the node's measurements, and
// the planned rates when the node measured nothing.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { done, rendition } from '../testing/fake-node.ts';
import { encodeNeeds, outcomesOf, renditionSpecOf } from './encode.ts';

const node = { nodeId: 'node_a', address: '127.0.0.1:1' };
const timings = { prepareMs: 1, startupMs: 2, encodeMs: 3, finishMs: 4 };

test("an outcome carries what the node measured; the planned rates with the container's 5 % when it measured no bandwidth", () => {
  const [measured] = outcomesOf([rendition!], done, node, timings);
  assert.deepEqual(
    [measured!.bandwidth, measured!.averageBandwidth, measured!.nodeId, measured!.segments?.length],
    [760_000, 640_000, 'node_a', 1],
  );
  assert.equal(measured!.quality, undefined, 'no frames scored: no quality');

  const unmeasured = {
    ...done,
    renditions: [
      { ...done.renditions[0]!, peakBandwidth: 0, averageBandwidth: 0, qualityFrames: 100, vmaf: 95, segments: [] },
    ],
  };
  const [estimated] = outcomesOf([rendition!], unmeasured, node, timings);
  const planned = rendition!.videoBitrateKbps + rendition!.audioBitrateKbps;
  assert.equal(estimated!.bandwidth, Math.ceil(planned * 1000 * 1.05));
  assert.equal(estimated!.averageBandwidth, Math.ceil(planned * 1000 * 1.05));
  assert.equal(estimated!.segments, undefined);
  assert.deepEqual(estimated!.quality, { vmaf: 95, psnr: 0, frames: 100 });
});

test('a rendition the node did not report fails the encode', () => {
  assert.throws(
    () => outcomesOf([{ ...rendition!, key: '720p' }], done, node, timings),
    /no result for rendition 720p/,
  );
});

test("what an encode needs of its node comes from its renditions' codecs, its quality score and the video's labels", () => {
  const spec = (videoCodec: 'h264' | 'hevc' | 'av1') => renditionSpecOf({ ...rendition!, videoCodec });
  const whole = (videoCodec: 'h264' | 'hevc' | 'av1', measureQuality = false) => ({
    whole: { renditions: [spec(videoCodec)], outputUrls: {}, measureQuality },
  });
  assert.deepEqual(encodeNeeds(whole('h264'), undefined), {});
  assert.deepEqual(encodeNeeds(whole('h264', true), undefined), { qualityFfmpeg: true });
  assert.deepEqual(encodeNeeds(whole('hevc'), ['acme']), { encoderOneOf: ['libx265'], labels: ['acme'] });
  const chunk = { chunk: { renditions: [spec('av1')], measureQuality: false } };
  assert.deepEqual(encodeNeeds(chunk, undefined), { qualityFfmpeg: true });
  // The audio track of a labelled video runs on its labelled nodes too.
  assert.deepEqual(encodeNeeds({ audioTrack: { outputUrl: 'u' } }, ['acme']), { labels: ['acme'] });
});

test('HEVC allowed hardware may run on a node whose HEVC encoder is a hardware one', () => {
  const hevc = { ...renditionSpecOf({ ...rendition!, videoCodec: 'hevc' }), hardwareEncodingAllowed: true };
  assert.deepEqual(encodeNeeds({ whole: { renditions: [hevc], outputUrls: {}, measureQuality: false } }, undefined), {
    encoderOneOf: ['libx265', 'hevc_nvenc', 'hevc_vaapi'],
  });
  assert.equal(renditionSpecOf(rendition!).hardwareEncodingAllowed, false);
  assert.equal(renditionSpecOf({ ...rendition!, hardwareEncodingAllowed: true }).hardwareEncodingAllowed, true);
});
