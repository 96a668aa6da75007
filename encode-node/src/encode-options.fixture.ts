// For the encode jobs' unit tests: a probed source and the options of an encode of it, for the
// checks that refuse a request before ffmpeg runs; and a small source file for those that run it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { pino } from 'pino';
import type { EncodeRequest__Output, ProbeResult__Output, RenditionSpec__Output } from '@kino/proto';
import { ProcessPriority } from '@kino/ffmpeg';
import type { EncodeJobOptions } from './encode-options.ts';

export const testSource: ProbeResult__Output = {
  audioTracks: [],
  durationSeconds: 4,
  videoDurationSeconds: 4,
  width: 640,
  height: 360,
  frameRate: 25,
  frameCount: 100,
  videoCodec: 'h264',
  pixelFormat: 'yuv420p',
  dynamicRange: 'sdr',
  hasAudio: true,
  audioCodec: 'aac',
  audioChannels: 2,
  audioSampleRate: 48000,
  formatName: 'mov',
  sizeBytes: 1000,
};

/** A small H.264 rendition that encodes fast: 160x90, AAC sound, 2 s segments. */
export const test90pSpec: RenditionSpec__Output = {
  key: '90p',
  width: 160,
  height: 90,
  videoBitrateKbps: 200,
  audioBitrateKbps: 64,
  frameRate: 0,
  pixelFormat: 'yuv420p',
  rateControlMode: 'variableBitrate',
  twoPass: false,
  x264Preset: 'ultrafast',
  audioCodec: 'aac',
  segmentSeconds: 2,
  videoCodec: 'h264',
  minQuantizer: 0,
  dynamicRange: '',
  audioStream: 0,
  hardwareEncodingAllowed: false,
  audioEndSeconds: 0,
  pictureCopy: false,
  lowDelay: false,
};

export function testEncodeOptions(request: Partial<EncodeRequest__Output>): EncodeJobOptions {
  return {
    request: {
      jobId: 'job',
      videoId: 'vid',
      inputUrl: 'http://storage.test/clip.mp4',
      source: testSource,
      onDemand: false,
      watermark: null,
      ...request,
    },
    workDir: tmpdir(),
    threads: 0,
    priority: new ProcessPriority(0),
    signal: new AbortController().signal,
    logger: pino({ level: 'silent' }),
    onProgress: () => {},
  };
}

/**
 * Writes a source for a job to run on: `seconds` of testsrc2 at 160x90 and 25 fps with a 440 Hz
 * tone, H.264 (ultrafast) and AAC; `outputArgs` go before the path (e.g. `-movflags +faststart`).
 */
export function makeTestSource(path: string, seconds: number, outputArgs: string[] = []): void {
  const made = spawnSync('ffmpeg', [
    ...['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=160x90:rate=25:duration=${seconds}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', ...outputArgs, path],
  ]);
  assert.equal(made.status, 0, made.stderr.toString());
}
