import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMediaPlaylist } from '@kino/ffmpeg';
import type { RenditionSpec__Output } from '@kino/proto';
import { resolveHlsSettings } from './encode-settings.ts';
import { test90pSpec, testSource as source } from './encode-options.fixture.ts';
import type { EncodedRendition } from './hls-checks.ts';
import { measureRenditions } from './rendition-done.ts';

const outDir = mkdtempSync(join(tmpdir(), 'kino-rendition-done-'));
const spec: RenditionSpec__Output = { ...test90pSpec, segmentSeconds: 1 };

beforeAll(() => {
  // 2.5 s of H.264 and AAC-LC, as fMP4 HLS in 1 s segments: what an encode leaves in a rendition's directory.
  mkdirSync(join(outDir, '90p'));
  const made = spawnSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=160x90:rate=25:duration=2.5',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=2.5',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-g',
      '25',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-b:a',
      '64k',
      '-f',
      'hls',
      '-hls_time',
      '1',
      '-hls_playlist_type',
      'vod',
      '-hls_segment_type',
      'fmp4',
      '-hls_fmp4_init_filename',
      'init.mp4',
      '-hls_segment_filename',
      'seg-%05d.m4s',
      'playlist.m3u8',
    ],
    { cwd: join(outDir, '90p') },
  );
  assert.equal(made.status, 0, made.stderr.toString());
  // The same files as a second rendition at half the frame rate (its frames are counted from its duration).
  cpSync(join(outDir, '90p'), join(outDir, '90p-12'), { recursive: true });
});

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

function encodedOf(key: string, rendition: RenditionSpec__Output): EncodedRendition {
  const dir = join(outDir, key);
  return {
    rendition: { spec: { ...rendition, key }, settings: resolveHlsSettings(rendition, source), prefix: `${key}/` },
    playlist: parseMediaPlaylist(readFileSync(join(dir, 'playlist.m3u8'), 'utf8')),
    files: readdirSync(dir)
      .filter((name) => name !== 'playlist.m3u8')
      .sort()
      .map((name) => `${key}/${name}`),
  };
}

test('each rendition is measured from the files it wrote: segments, bandwidth, CODECS, size, frames and its score', async () => {
  const first = encodedOf('90p', spec);
  const second = encodedOf('90p-12', { ...spec, frameRate: 12 });
  const scores = new Map([['90p', { vmaf: 91.5, psnr: 40.25, qualityFrames: 3 }]]);
  const [measured, other] = await measureRenditions(outDir, [first, second], scores, {
    frame: 62,
    percent: 100,
    outTimeSeconds: 2.5,
    speed: 9,
    done: true,
  });

  const segments = first.playlist.segments;
  assert.equal(segments.length, 3);
  const sizeOf = (name: string) => statSync(join(outDir, '90p', name)).size;
  assert.deepEqual(
    measured!.segments,
    segments.map((s) => ({ name: s.uri, durationSeconds: s.durationSeconds, sizeBytes: sizeOf(s.uri) })),
  );
  assert.equal(measured!.key, '90p');
  assert.equal(measured!.segmentCount, 3);
  assert.equal(
    measured!.durationSeconds,
    segments.reduce((sum, s) => sum + s.durationSeconds, 0),
  );
  const segmentBits = segments.map((s) => sizeOf(s.uri) * 8);
  assert.equal(
    measured!.averageBandwidth,
    Math.round(segmentBits.reduce((a, b) => a + b, 0) / measured!.durationSeconds),
  );
  assert.ok(measured!.peakBandwidth >= measured!.averageBandwidth);
  assert.match(measured!.codecs, /^avc1\.[0-9a-f]{6},mp4a\.40\.2$/);
  assert.deepEqual(
    [measured!.width, measured!.height, measured!.pixelFormat, measured!.audioFormat],
    [160, 90, 'yuv420p', 'aac'],
  );
  assert.equal(
    measured!.bytesWritten,
    first.files.reduce((sum, name) => sum + statSync(join(outDir, name)).size, 0),
    'every file of the rendition, init segment included',
  );
  assert.equal(measured!.frameCount, 62, "ffmpeg's own count, at the first rendition's frame rate");
  assert.deepEqual([measured!.vmaf, measured!.psnr, measured!.qualityFrames], [91.5, 40.25, 3]);

  assert.equal(other!.key, '90p-12');
  assert.equal(
    other!.frameCount,
    Math.round(other!.durationSeconds * 12),
    'another frame rate: counted from its duration',
  );
  assert.deepEqual([other!.vmaf, other!.psnr, other!.qualityFrames], [0, 0, 0], 'not measured');
});
