import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { checkEncodingParameters, withDefaultParameters } from './encoding-parameters.ts';
import { audioEncodingOf, defaultEncodingParameters } from '@kino/proto/contract';
import { planLadder } from '@kino/orchestrator';
import { renditionSpecOf } from '@kino/orchestrator';

describe('encoding parameters', () => {
  it('take the spec defaults, veryfast included', () => {
    assert.deepEqual(withDefaultParameters({}), {
      maxEdgeLength: -1,
      maxFrameRate: -1,
      pixelFormat: 'yuv420p',
      rateControlMode: 'variableBitrate',
      twoPassVBREncoding: false,
      compressionRatio: 'veryfast',
      audioCodec: 'aac',
      encodingMode: 'fixed',
      additionalCodecs: [],
    });
    assert.equal(
      withDefaultParameters({ compressionRatio: 'slower', twoPassVBREncoding: true }).compressionRatio,
      'slower',
    );
  });

  // The defaults are applied here, once: what a request that names none puts on the wire.
  it('defaults: 6 s segments, variable bitrate, veryfast, yuv420p, aac', () => {
    const [rendition] = planLadder(
      'standard',
      { width: 640, height: 360, frameRate: 25, hasAudio: true },
      withDefaultParameters({}),
    );
    const spec = renditionSpecOf(rendition!);
    assert.equal(spec.segmentSeconds, 6);
    assert.equal(spec.rateControlMode, 'variableBitrate');
    assert.equal(spec.x264Preset, 'veryfast');
    assert.equal(spec.pixelFormat, 'yuv420p');
    assert.equal(audioEncodingOf[rendition!.audioCodec].encoder, 'aac');
  });

  it('accept -1 or 1..240 frames per second only', () => {
    for (const ok of [-1, 1, 24, 30, 60, 240]) {
      assert.deepEqual(checkEncodingParameters({ ...defaultEncodingParameters, maxFrameRate: ok }), [], String(ok));
    }
    for (const bad of [0, -2, 241, 1000]) {
      const errors = checkEncodingParameters({ ...defaultEncodingParameters, maxFrameRate: bad });
      assert.equal(errors.length, 1, String(bad));
      assert.equal(errors[0]?.location, 'body.maxFrameRate');
      assert.equal(errors[0]?.value, bad);
    }
  });
});
