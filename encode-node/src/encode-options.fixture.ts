// For the encode jobs' unit tests: a probed source and the options of an encode of it, for the
// checks that refuse a request before ffmpeg runs.
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
