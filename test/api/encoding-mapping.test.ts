// Every encoding value the API accepts has its ffmpeg counterpart in the shared contract's one
// mapping, and a ladder in the orchestrator. TypeScript already proves the contract's tables cover
// the contract's types; this checks the values the API's schema really lets through, read off the
// schema itself. It imports two process packages, the API and the orchestrator, so it lives here
// rather than beside either; it starts no services.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import {
  audioEncodingOf,
  pixelFormatOfX264,
  rateControlModes,
  x264PixelFormatFor,
  x264PixelFormats,
  x264PresetOfCompressionRatio,
  x264Presets,
  type AudioEncoding,
  type X264Preset,
} from '@kino/proto/contract';
import { ProcessBody, withDefaultParameters } from '@kino/api';
import { audioBitrateKbps, planLadder, presetRungs, renditionSpecOf } from '@kino/orchestrator';

/** The values the schema accepts for a field (the `enum` of its JSON Schema). */
function acceptedValues(field: keyof typeof ProcessBody.properties): string[] {
  const values = (ProcessBody.properties[field] as { enum?: unknown[] }).enum;
  assert.ok(Array.isArray(values) && values.length > 0, `${field} has an enum`);
  return values.map(String);
}

/** Looks a value up in a table the way a value read at run time is. */
function lookUp<T>(table: Readonly<Record<string, T>>, value: string): T | undefined {
  return Object.hasOwn(table, value) ? table[value] : undefined;
}

describe('the API -> ffmpeg mapping covers every value the API accepts', () => {
  it('compressionRatio: an x264 preset for each', () => {
    for (const ratio of acceptedValues('compressionRatio')) {
      const preset = lookUp<X264Preset>(x264PresetOfCompressionRatio, ratio);
      assert.ok(preset !== undefined && x264Presets.includes(preset), `compressionRatio ${ratio} -> ${String(preset)}`);
    }
  });

  it('pixelFormat: a libx264 pixel format for each, reported back under an accepted name', () => {
    const accepted = acceptedValues('pixelFormat');
    for (const format of accepted) {
      // Whatever the source (RGB here has no libx264 counterpart, so autoDetect falls back).
      for (const source of ['yuv420p', 'yuv444p10le', 'rgb24']) {
        const written = x264PixelFormatFor(format as Parameters<typeof x264PixelFormatFor>[0], source);
        assert.ok(x264PixelFormats.includes(written), `pixelFormat ${format} (source ${source}) -> ${written}`);
        assert.ok(
          accepted.includes(pixelFormatOfX264[written]),
          `${written} is reported as ${pixelFormatOfX264[written]}`,
        );
      }
    }
  });

  it('audioCodec: an encoder for each, and an audio bitrate', () => {
    for (const codec of acceptedValues('audioCodec')) {
      const encoding = lookUp<AudioEncoding>(audioEncodingOf, codec);
      assert.ok(encoding?.encoder, `audioCodec ${codec} has an encoder`);
      assert.ok(lookUp(audioBitrateKbps, codec)! > 0, `audioCodec ${codec} has a bitrate`);
    }
  });

  it('rateControlMode: one the encode nodes take', () => {
    for (const mode of acceptedValues('rateControlMode'))
      assert.ok((rateControlModes as readonly string[]).includes(mode), mode);
  });

  it('videoQuality: a ladder for each', () => {
    for (const quality of acceptedValues('videoQuality'))
      assert.ok(lookUp(presetRungs, quality)?.length, `videoQuality ${quality}`);
  });
});

describe('the API -> the orchestrator', () => {
  // The defaults are applied by the API, once: what a request that names none puts on the wire.
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
});
