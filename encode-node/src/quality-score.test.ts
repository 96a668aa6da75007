import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { RenditionSpec__Output } from '@kino/proto';
import { resolveHlsSettings } from './encode-settings.ts';
import { testEncodeOptions, testSource as source } from './encode-options.fixture.ts';
import type { EncodedRendition } from './hls-checks.ts';
import { scoreRenditions } from './quality-score.ts';

const video: RenditionSpec__Output = {
  key: '360p',
  width: 640,
  height: 360,
  videoBitrateKbps: 800,
  audioBitrateKbps: 128,
  frameRate: 0,
  pixelFormat: 'yuv420p',
  rateControlMode: 'variableBitrate',
  twoPass: false,
  x264Preset: 'veryfast',
  audioCodec: 'aac',
  segmentSeconds: 6,
  videoCodec: 'h264',
  minQuantizer: 0,
  dynamicRange: '',
  audioStream: 0,
  hardwareEncodingAllowed: false,
  audioEndSeconds: 0,
  pictureCopy: false,
  lowDelay: false,
};
const audioOnly: RenditionSpec__Output = { ...video, key: 'audio', width: 0, height: 0, videoBitrateKbps: 0 };

function encodedOf(spec: RenditionSpec__Output): EncodedRendition {
  return {
    rendition: { spec, settings: resolveHlsSettings(spec, source), prefix: `${spec.key}/` },
    playlist: { targetDuration: 6, endList: true, segments: [{ uri: 'seg-00000.m4s', durationSeconds: 4 }] },
    files: [],
  };
}

/** Scores with a logger whose lines are kept. */
async function score(
  encoded: EncodedRendition[],
  { qualityFfmpeg, signal }: { qualityFfmpeg?: string; signal?: AbortSignal } = {},
) {
  const logs: string[] = [];
  const jobDir = mkdtempSync(join(tmpdir(), 'kino-quality-'));
  const options = {
    ...testEncodeOptions({}),
    ...(qualityFfmpeg ? { qualityFfmpeg } : {}),
    ...(signal ? { signal } : {}),
    logger: pino({}, { write: (line: string) => logs.push((JSON.parse(line) as { msg: string }).msg) }),
  };
  try {
    const scores = await scoreRenditions(options, source, encoded, { outDir: jobDir, jobDir, startSeconds: 0 });
    return { scores, logs };
  } finally {
    rmSync(jobDir, { recursive: true, force: true });
  }
}

test('only renditions with a picture are scored, on a node with the quality ffmpeg; without it the encode stands, unscored, and says so', async () => {
  assert.deepEqual(
    await score([encodedOf(audioOnly)]),
    { scores: new Map(), logs: [] },
    'audio alone: nothing to score, nothing said',
  );
  assert.deepEqual(await score([encodedOf(video), encodedOf(audioOnly)]), {
    scores: new Map(),
    logs: ['quality not measured: this node has no quality ffmpeg (NODE_QUALITY_FFMPEG)'],
  });
});

test('a scoring that fails leaves the encode standing, unscored; a cancelled one fails the encode', async () => {
  // No sample to read in the job directory: the scoring fails before its ffmpeg runs.
  assert.deepEqual(await score([encodedOf(video)], { qualityFfmpeg: 'ffmpeg' }), {
    scores: new Map(),
    logs: ['quality not measured: the scoring failed'],
  });
  const cancelled = new AbortController();
  cancelled.abort();
  await assert.rejects(score([encodedOf(video)], { qualityFfmpeg: 'ffmpeg', signal: cancelled.signal }), {
    code: 'ENOENT',
  });
});
