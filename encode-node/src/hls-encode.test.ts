import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProbeResult__Output, RenditionSpec__Output } from '@kino/proto';
import { parseMediaPlaylist } from '@kino/ffmpeg';
import { withAbsoluteUris } from '@kino/proto/contract';
import { makeTestSource, test90pSpec, testEncodeOptions, testSource } from './encode-options.fixture.ts';
import type { EncodeJobProgress } from './encode-options.ts';
import { UrlRefusedError } from './errors.ts';
import { encodeHls } from './hls-encode.ts';
import { planHlsEncode } from './hls-plan.ts';
import { HlsUploads } from './hls-uploads.ts';

const dir = mkdtempSync(join(tmpdir(), 'kino-hls-encode-'));
const sourcePath = join(dir, 'source.mp4');
// 8 s of 25 fps picture and sound, its index first (ffmpeg reads it as it arrives).
const source: ProbeResult__Output = {
  ...testSource,
  width: 160,
  height: 90,
  durationSeconds: 8,
  videoDurationSeconds: 8,
  frameCount: 200,
};
const spec: RenditionSpec__Output = test90pSpec;

beforeAll(() => makeTestSource(sourcePath, 8, ['-movflags', '+faststart']));

// Storage's presigned PUTs (refused with 403 while `refusing`), and the source over HTTP: it arrives
// in part, then holds, while `holding` (ffmpeg has finished segments to upload, and waits for more).
const puts: string[] = [];
let refusing = false;
let holding = false;
const held: ServerResponse[] = [];
const server = createServer((request, response) => {
  if (request.method === 'PUT') {
    puts.push(request.url!);
    request.resume();
    request.on('end', () => response.writeHead(refusing ? 403 : 200).end());
    return;
  }
  const bytes = readFileSync(sourcePath);
  response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length });
  if (!holding) return void response.end(bytes);
  held.push(response);
  response.write(bytes.subarray(0, Math.floor(bytes.length * 0.7)));
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  for (const response of held) response.destroy();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An upload URL for every segment of the renditions `keys` (8 s in 2 s segments, and one spare). */
const urlsOf = (...keys: string[]) =>
  Object.fromEntries(
    keys.flatMap((key) => Array.from({ length: 5 }, (_, i) => [`${key}/seg-0000${i}.m4s`, `${base}/${key}/seg-${i}`])),
  );

/** Encodes the plan of `specs` from `input`, with its progress kept; `outputUrls` for the scan's uploads. */
async function encode(input: string, specs: RenditionSpec__Output[], outputUrls: Record<string, string>) {
  const jobDir = mkdtempSync(join(dir, 'job-'));
  const progress: EncodeJobProgress[] = [];
  const options = {
    ...testEncodeOptions({ inputUrl: input, source }),
    onProgress: (p: EncodeJobProgress) => progress.push(p),
  };
  const uploads = new HlsUploads(join(jobDir, 'hls'), outputUrls, options.signal);
  try {
    const encoded = await encodeHls(options, source, planHlsEncode(specs, outputUrls, [], source, undefined), {
      jobDir,
      uploads,
    });
    return { encoded, progress, outDir: uploads.outDir };
  } finally {
    await uploads.close();
  }
}

test('several renditions are one ffmpeg run, each in its directory, with every frame and progress to 100', async () => {
  const { encoded, progress, outDir } = await encode(
    sourcePath,
    [spec, { ...spec, key: '72p', width: 128, height: 72 }],
    urlsOf('90p', '72p'),
  );
  assert.equal(encoded.last?.frame, 200);
  for (const key of ['90p', '72p']) {
    const playlist = parseMediaPlaylist(readFileSync(join(outDir, key, 'playlist.m3u8'), 'utf8'));
    assert.deepEqual(
      playlist.segments.map((s) => [s.uri, s.durationSeconds]),
      [
        ['seg-00000.m4s', 2],
        ['seg-00001.m4s', 2],
        ['seg-00002.m4s', 2],
        ['seg-00003.m4s', 2],
      ],
    );
    assert.ok(statSync(join(outDir, key, 'init.mp4')).size > 0);
  }
  assert.ok(progress.length > 0);
  assert.deepEqual(
    progress.map((p) => p.percent),
    progress.map((p) => p.percent).sort((a, b) => a - b),
    'progress only grows',
  );
  assert.equal(progress.at(-1)?.percent, 100);
});

test('two-pass runs pass 1 as the first 35 % of the progress, then pass 2 to 100', async () => {
  const { encoded, progress, outDir } = await encode(sourcePath, [{ ...spec, twoPass: true }], urlsOf('90p'));
  assert.equal(encoded.last?.frame, 200);
  assert.deepEqual(readdirSync(join(outDir, '90p')).filter((name) => name.startsWith('seg-')).length, 4);
  const percents = progress.map((p) => p.percent);
  assert.ok(
    percents.some((p) => p > 0 && p <= 35),
    'pass 1',
  );
  assert.ok(
    percents.some((p) => p > 35),
    'pass 2',
  );
  assert.deepEqual(
    percents,
    [...percents].sort((a, b) => a - b),
  );
  assert.equal(percents.at(-1), 100);
});

test('segments go up while ffmpeg still encodes; a refused upload stops ffmpeg and is what the encode fails with', async () => {
  puts.length = 0;
  refusing = true;
  holding = true;
  try {
    const started = Date.now();
    await assert.rejects(encode(`${base}/source.mp4`, [spec], urlsOf('90p')), UrlRefusedError);
    assert.ok(
      puts.length > 0 && puts.every((path) => /^\/90p\/seg-[0-3]$/.test(path)),
      `finished segments went up while ffmpeg waited for the rest of the source: ${puts.join(', ')}`,
    );
    assert.ok(Date.now() - started < 20_000, 'ffmpeg was stopped, not left waiting for the source');
  } finally {
    refusing = false;
    holding = false;
  }
});

test("a picture copy: the rendition's picture alone, from its playlist of presigned URLs, cut where the original was", async () => {
  const original = await encode(sourcePath, [{ ...spec, segmentSeconds: 6 }], urlsOf('90p'));
  const originalDir = join(original.outDir, '90p');
  // Storage's presigned GETs of the original's files: any query, the file by its path.
  const files = createServer((request, response) => {
    const name = new URL(request.url!, 'http://storage.test').pathname.slice(1);
    response.writeHead(200).end(readFileSync(join(originalDir, name)));
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  try {
    const filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    const input = withAbsoluteUris(
      readFileSync(join(originalDir, 'playlist.m3u8'), 'utf8'),
      (uri) => `${filesBase}/${uri}?X-Amz-Signature=a%2Fb&X-Amz-Expires=60`,
    );
    writeFileSync(join(originalDir, 'input.m3u8'), input);
    const copy = await encode(
      `${filesBase}/input.m3u8?X-Amz-Signature=c`,
      [{ ...spec, key: '90p-v', segmentSeconds: 6, audioBitrateKbps: 0, pictureCopy: true }],
      urlsOf('90p-v'),
    );
    const durations = (playlist: string) => parseMediaPlaylist(readFileSync(playlist, 'utf8')).segments;
    const copied = durations(join(copy.outDir, '90p-v', 'playlist.m3u8'));
    assert.deepEqual(copied, durations(join(originalDir, 'playlist.m3u8')));
    assert.deepEqual(
      copied.map((s) => s.durationSeconds),
      [6, 2],
    );
    const streamsOf = (dir: string) =>
      spawnSync('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_type',
        '-of',
        'csv=p=0',
        join(dir, 'init.mp4'),
      ])
        .stdout.toString()
        .trim()
        .split('\n');
    assert.deepEqual(streamsOf(originalDir), ['video', 'audio']);
    assert.deepEqual(streamsOf(join(copy.outDir, '90p-v')), ['video'], 'the picture alone');
    assert.equal(copy.encoded.last?.frame, 200, 'every frame, none encoded again');
  } finally {
    files.close();
  }
});
