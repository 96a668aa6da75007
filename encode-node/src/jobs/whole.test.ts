import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProbeResult__Output } from '@kino/proto';
import { FfmpegAbortedError } from '@kino/ffmpeg';
import { makeTestSource, test90pSpec, testEncodeOptions, testSource as source } from '../encode-options.fixture.ts';
import type { EncodeJobProgress } from '../encode-options.ts';
import { InvalidRequestError, asJobError } from '../errors.ts';
import { runWholeJob } from './whole.ts';

test('a whole encode makes at least one rendition: none is refused before ffmpeg runs', async () => {
  const whole = { renditions: [], outputUrls: {}, measureQuality: false };
  await assert.rejects(
    runWholeJob(testEncodeOptions({ job: 'whole', whole }), source, whole),
    (error: unknown) => error instanceof InvalidRequestError && /renditions is empty/.test(error.message),
  );
});

// A 2 s source on disk and storage's presigned PUTs, each one recorded.
const dir = mkdtempSync(join(tmpdir(), 'kino-whole-'));
const sourcePath = join(dir, 'source.mp4');
const shortSource: ProbeResult__Output = {
  ...source,
  width: 160,
  height: 90,
  durationSeconds: 2,
  videoDurationSeconds: 2,
  frameCount: 50,
};
const puts: string[] = [];
const storage = createServer((request, response) => {
  puts.push(request.url!);
  request.resume();
  request.on('end', () => response.writeHead(200).end());
});
let base = '';

beforeAll(async () => {
  makeTestSource(sourcePath, 2);
  await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(storage.address() as AddressInfo).port}`;
});

afterAll(() => {
  storage.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a call cancelled (or abandoned) before its encode started runs no ffmpeg and uploads nothing', async () => {
  const names = ['init.mp4', 'playlist.m3u8', 'seg-00000.m4s', 'seg-00001.m4s', 'seg-00002.m4s'];
  const whole = {
    renditions: [test90pSpec],
    outputUrls: Object.fromEntries(names.map((name) => [`90p/${name}`, `${base}/90p/${name}`])),
    measureQuality: false,
  };
  const caller = new AbortController();
  caller.abort();
  const progress: EncodeJobProgress[] = [];
  const options = {
    ...testEncodeOptions({ job: 'whole', whole, inputUrl: sourcePath, source: shortSource }),
    workDir: dir,
    signal: caller.signal,
    onProgress: (p: EncodeJobProgress) => progress.push(p),
  };
  await assert.rejects(
    runWholeJob(options, shortSource, whole),
    (error: unknown) => error instanceof FfmpegAbortedError && asJobError(error)?.reason === 'CANCELLED',
  );
  assert.deepEqual(progress, [], 'ffmpeg never ran');
  assert.deepEqual(puts, [], 'nothing went up');
});
