import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { checkEncodingParameters, withDefaultParameters } from './encoding-parameters.ts';
import { defaultEncodingParameters } from '@kino/proto/contract';

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
      nodeLabels: [],
      hardwareEncoding: 'never',
    });
    assert.equal(
      withDefaultParameters({ compressionRatio: 'slower', twoPassVBREncoding: true }).compressionRatio,
      'slower',
    );
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

it("the environment's encode settings are the defaults of what a call leaves out; what the call gives wins (issue 54)", () => {
  const environment = { hardware_encoding: 'allowed' as const, node_labels: ['acme'] };
  const fromEnvironment = withDefaultParameters({}, environment);
  assert.equal(fromEnvironment.hardwareEncoding, 'allowed');
  assert.deepEqual(fromEnvironment.nodeLabels, ['acme']);
  const fromCall = withDefaultParameters({ hardwareEncoding: 'never', nodeLabels: ['gpu'] }, environment);
  assert.equal(fromCall.hardwareEncoding, 'never');
  assert.deepEqual(fromCall.nodeLabels, ['gpu']);
  const unset = withDefaultParameters({}, { hardware_encoding: null, node_labels: [] });
  assert.equal(unset.hardwareEncoding, 'never');
  assert.deepEqual(unset.nodeLabels, []);
});

it("a call's watermark takes its defaults; without one the environment's applies; with neither there is none (issue 57)", () => {
  const standing = {
    imageId: 'img_env',
    position: 'top-left' as const,
    marginPercent: 5,
    widthPercent: 20,
    opacity: 0.5,
  };
  const environment = { hardware_encoding: null, node_labels: null, watermark: standing };
  assert.deepEqual(withDefaultParameters({}, environment).watermark, standing);
  assert.deepEqual(
    withDefaultParameters({ watermark: { imageId: 'img_call', position: 'center' } }, environment).watermark,
    {
      imageId: 'img_call',
      position: 'center',
      marginPercent: 3,
      widthPercent: 12,
      opacity: 1,
    },
  );
  const none = withDefaultParameters({}, { ...environment, watermark: null });
  assert.equal('watermark' in none, false, 'no key: parameters stored as before watermarks');
});
