import { test } from 'vitest';
import assert from 'node:assert/strict';
import {
  canRun,
  labelsHeld,
  needsOfEncode,
  unmetNeeds,
  transcribes,
  whyNoNodeCanRun,
  type NodeCapabilities,
} from './node-capabilities.ts';
import { nodeLabelListPattern, nodeLabelPattern } from './encoding.ts';

const plain: NodeCapabilities = { encoders: ['libx264', 'libx265'], qualityFfmpeg: false, labels: {} };
const quality: NodeCapabilities = { encoders: ['libx264', 'libx265'], qualityFfmpeg: true, labels: { name: 'q' } };
const acmeGpu: NodeCapabilities = {
  encoders: ['libx264', 'h264_nvenc', 'hevc_nvenc'],
  qualityFfmpeg: false,
  labels: { acme: '', gpu: '', region: 'eu' },
};
/** A node that registered before capabilities existed: it reported none. */
const older: NodeCapabilities = { encoders: [], qualityFfmpeg: false, labels: {} };

test('what an encode needs: AV1 and quality scores the quality ffmpeg, HEVC an HEVC encoder, H.264 nothing', () => {
  assert.deepEqual(needsOfEncode({ codecs: ['h264'] }), {});
  assert.deepEqual(needsOfEncode({ codecs: [] }), {}, 'an audio track');
  assert.deepEqual(needsOfEncode({ codecs: ['av1'] }), { qualityFfmpeg: true });
  assert.deepEqual(needsOfEncode({ codecs: ['h264'], measureQuality: true }), { qualityFfmpeg: true });
  assert.deepEqual(needsOfEncode({ codecs: ['hevc'] }), { encoderOneOf: ['libx265'] });
  assert.deepEqual(needsOfEncode({ codecs: ['h264'], labels: ['acme'] }), { labels: ['acme'] });
});

test('a node runs a job only when it meets every need', () => {
  assert.ok(canRun(older, {}), 'H.264 runs anywhere, on a node that predates capabilities too');
  assert.ok(canRun(older, null));
  assert.ok(!canRun(plain, { qualityFfmpeg: true }));
  assert.ok(canRun(quality, { qualityFfmpeg: true }));
  assert.ok(canRun(plain, { encoderOneOf: ['libx265'] }));
  assert.ok(!canRun(acmeGpu, { encoderOneOf: ['libx265'] }), 'hardware HEVC only when the job allows it');
  assert.ok(canRun(acmeGpu, { encoderOneOf: ['libx265', 'hevc_nvenc'] }));
  assert.ok(canRun(acmeGpu, { labels: ['acme', 'gpu'] }));
  assert.ok(canRun(acmeGpu, { labels: ['region=eu', 'region'] }), 'a name=value label is held by name and by pair');
  assert.ok(!canRun(acmeGpu, { labels: ['acme', 'region=us'] }), 'every label, not one of them');
  assert.ok(!canRun(quality, { labels: ['acme'], qualityFfmpeg: true }));
  assert.deepEqual([...labelsHeld({ acme: '', region: 'eu' })], ['acme', 'region', 'region=eu']);
});

test('what a node lacks, in words', () => {
  assert.deepEqual(unmetNeeds(plain, { qualityFfmpeg: true, labels: ['acme', 'gpu'] }), [
    'the quality ffmpeg (SVT-AV1, libvmaf)',
    'the labels acme, gpu',
  ]);
  assert.deepEqual(unmetNeeds(acmeGpu, { encoderOneOf: ['libx265'] }), ['an encoder among libx265']);
});

test('why a job waits: no live node meets its needs (a free slot is not the question)', () => {
  assert.equal(whyNoNodeCanRun({ qualityFfmpeg: true }, [plain, quality]), undefined);
  assert.equal(
    whyNoNodeCanRun({ qualityFfmpeg: true }, [plain, acmeGpu]),
    'no live encode node has the quality ffmpeg (SVT-AV1, libvmaf)',
  );
  // Each need met by some node, never both by one: it still waits, and says all it needs.
  assert.equal(
    whyNoNodeCanRun({ qualityFfmpeg: true, labels: ['acme'] }, [quality, acmeGpu]),
    'no live encode node has the quality ffmpeg (SVT-AV1, libvmaf) and the label acme',
  );
  assert.equal(whyNoNodeCanRun({}, []), 'no encode node is live');
  assert.equal(whyNoNodeCanRun(null, [older]), undefined);
});

test('a node label is letters, digits, ".", "_" and "-", with an optional value: nothing PostgreSQL could refuse', () => {
  const label = new RegExp(nodeLabelPattern);
  for (const ok of ['gpu', 'acme', 'region=eu', 'tier=', 'a.b_c-d=x.y']) assert.ok(label.test(ok), ok);
  for (const bad of ['', '=eu', 'gp u', 'gpu,acme', 'a\u0000b', '\ud9ee', 'é', '-x'])
    assert.ok(!label.test(bad), JSON.stringify(bad));
  assert.ok(nodeLabelListPattern.test('gpu, region=eu,acme'));
  assert.ok(!nodeLabelListPattern.test('gpu,,acme'));
});

test('a transcription runs only on a node whose engine has the language ("auto": any engine)', () => {
  const english = { encoders: [], qualityFfmpeg: false, labels: {}, transcribeLanguages: ['en'] };
  const none = { encoders: [], qualityFfmpeg: false, labels: {} };
  assert.ok(canRun(english, { transcribeLanguage: 'en-GB' }));
  assert.ok(canRun(english, { transcribeLanguage: 'auto' }));
  assert.ok(!canRun(english, { transcribeLanguage: 'fr' }));
  assert.ok(!canRun(none, { transcribeLanguage: 'auto' }));
  assert.deepEqual(unmetNeeds(english, { transcribeLanguage: 'fr' }), ['a speech engine for the language fr']);
  assert.ok(!transcribes([], 'en'));
});
