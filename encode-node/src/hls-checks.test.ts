import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseMediaPlaylist } from '@kino/ffmpeg';
import type { RenditionSpec__Output } from '@kino/proto';
import { resolveHlsSettings } from './encode-settings.ts';
import { testSource } from './encode-options.fixture.ts';
import { InvalidRequestError, InvalidSourceError, StorageUnavailableError } from './errors.ts';
import { checkCoverage, checkRenditions, type Coverage } from './hls-checks.ts';
import { HlsUploads } from './hls-uploads.ts';

const source = { ...testSource, durationSeconds: 12, videoDurationSeconds: 12 };

function playlistOf(...seconds: number[]): string {
  return [
    '#EXTM3U',
    '#EXT-X-TARGETDURATION:6',
    '#EXT-X-MAP:URI="init.mp4"',
    ...seconds.flatMap((s, i) => [`#EXTINF:${s},`, `seg-${String(i).padStart(5, '0')}.m4s`]),
    '#EXT-X-ENDLIST',
    '',
  ].join('\n');
}

test('an encode covers what was asked within a margin; less is the source ending early (final) or its read ending early (worth another try)', () => {
  const coverage: Coverage = { expectedSeconds: 12, startSeconds: 0, source, errorOutput: '' };
  assert.doesNotThrow(() => checkCoverage('360p', parseMediaPlaylist(playlistOf(6, 6)), coverage));
  assert.doesNotThrow(
    () => checkCoverage('360p', parseMediaPlaylist(playlistOf(6, 5.2)), coverage),
    '12 × 0.97 − 0.5 = 11.14 s is enough',
  );
  const short = parseMediaPlaylist(playlistOf(6, 5));
  assert.throws(
    () => checkCoverage('360p', short, coverage),
    (error: unknown) =>
      error instanceof StorageUnavailableError &&
      error.message === 'the encode of 360p covered 11.00 s of the 12.00 s asked for: the source read ended early',
  );
  // ffmpeg said the source itself is cut short: the message says where it ends in the video (a chunk's start on).
  const truncated = { ...coverage, startSeconds: 30, errorOutput: 'https://storage/src.mp4: partial file\n' };
  assert.throws(
    () => checkCoverage('360p', short, truncated),
    (error: unknown) =>
      error instanceof InvalidSourceError &&
      error.message ===
        'the source ends at about 41.0 s, before the 12.0 s its index announces: the file is truncated or damaged',
  );
});

test('each rendition is checked as written: its playlist covers the encode, a short last segment is logged, every file kept has its URL', async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'kino-checks-'));
  const lines: { msg: string; rendition?: string; lastSegmentSeconds?: number }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const spec = {
    key: '360p',
    width: 640,
    height: 360,
    videoBitrateKbps: 800,
    audioBitrateKbps: 0,
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
  } satisfies RenditionSpec__Output;
  const rendition = { spec, settings: resolveHlsSettings(spec, source), prefix: '360p/' };
  const coverage: Coverage = { expectedSeconds: 12, startSeconds: 0, source, errorOutput: '' };
  try {
    mkdirSync(join(outDir, '360p'));
    for (const name of ['init.mp4', 'seg-00000.m4s', 'seg-00001.m4s', 'seg-00002.m4s'])
      writeFileSync(join(outDir, '360p', name), name);
    writeFileSync(join(outDir, '360p', 'playlist.m3u8'), playlistOf(6, 5.8, 0.3));
    const urls = Object.fromEntries(
      ['init.mp4', 'seg-00000.m4s', 'seg-00001.m4s', 'seg-00002.m4s'].map((name) => [
        `360p/${name}`,
        `http://storage.test/${name}`,
      ]),
    );
    const uploads = new HlsUploads(outDir, urls, new AbortController().signal);
    const keep = (name: string) => name !== 'playlist.m3u8';
    const [encoded, ...others] = await checkRenditions([rendition], uploads, coverage, keep, logger);
    assert.equal(others.length, 0);
    assert.deepEqual(encoded!.files, [
      '360p/init.mp4',
      '360p/seg-00000.m4s',
      '360p/seg-00001.m4s',
      '360p/seg-00002.m4s',
    ]);
    assert.deepEqual(
      encoded!.playlist.segments.map((s) => s.durationSeconds),
      [6, 5.8, 0.3],
    );
    assert.deepEqual(
      lines.map(({ msg, rendition: key, lastSegmentSeconds }) => ({ msg, key, lastSegmentSeconds })),
      [{ msg: 'the last segment is shorter than the minimum', key: '360p', lastSegmentSeconds: 0.3 }],
    );
    // Kept with the playlist, the rendition has a file without a URL: nothing of it goes up.
    await assert.rejects(
      checkRenditions([rendition], uploads, coverage, () => true, logger),
      (error: unknown) => error instanceof InvalidRequestError && /no URL for 360p\/playlist.m3u8/.test(error.message),
    );
    await uploads.close();
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});
