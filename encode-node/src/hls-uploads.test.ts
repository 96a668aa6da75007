import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRequestError, JobCancelledError, UrlRefusedError } from './errors.ts';
import { HlsUploads } from './hls-uploads.ts';

// A stand-in for storage's presigned PUTs: records when each PUT arrives and when it is answered
// (the answer a tick later), and refuses the paths in `refused` with 403.
const events: string[] = [];
const contentTypes = new Map<string, string | undefined>();
const refused = new Set<string>();
let server: Server;
let base: string;
const outDir = mkdtempSync(join(tmpdir(), 'kino-hls-uploads-'));
const files = ['360p/init.mp4', '360p/seg-00000.m4s', '360p/seg-00001.m4s', '360p/playlist.m3u8'];

beforeAll(async () => {
  mkdirSync(join(outDir, '360p'));
  for (const name of files) writeFileSync(join(outDir, name), `bytes of ${name}`);
  server = createServer((req, res) => {
    const name = req.url!.slice(1);
    events.push(`arrived ${name}`);
    contentTypes.set(name, req.headers['content-type']);
    req.resume();
    req.on('end', () =>
      setImmediate(() => {
        events.push(`answered ${name}`);
        res.writeHead(refused.has(name) ? 403 : 200);
        res.end();
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  rmSync(outDir, { recursive: true, force: true });
});

const urlsOf = (names: string[]) => Object.fromEntries(names.map((name) => [name, `${base}/${name}`]));

test('each file goes up once, with its HLS content type; the playlist only once everything else is in storage', async () => {
  events.length = 0;
  const uploads = new HlsUploads(outDir, urlsOf(files), new AbortController().signal);
  try {
    uploads.uploadNew(['360p/seg-00000.m4s']);
    uploads.uploadNew(['360p/seg-00000.m4s']); // a scan finds it again: not uploaded twice
    await uploads.uploadRest(files, ['360p/playlist.m3u8']);
    assert.deepEqual(
      events.filter((e) => e.startsWith('arrived')).sort(),
      files.map((name) => `arrived ${name}`).sort(),
    );
    const playlistArrived = events.indexOf('arrived 360p/playlist.m3u8');
    for (const name of files.slice(0, 3))
      assert.ok(events.indexOf(`answered ${name}`) < playlistArrived, `${name} before the playlist`);
    assert.deepEqual(Object.fromEntries(contentTypes), {
      '360p/init.mp4': 'video/mp4',
      '360p/seg-00000.m4s': 'video/iso.segment',
      '360p/seg-00001.m4s': 'video/iso.segment',
      '360p/playlist.m3u8': 'application/vnd.apple.mpegurl',
    });
    assert.equal(
      uploads.bytes,
      files.reduce((sum, name) => sum + `bytes of ${name}`.length, 0),
    );
    assert.equal(uploads.jobSignal.aborted, false);
  } finally {
    await uploads.close();
  }
  assert.equal(uploads.jobSignal.aborted, true, 'closed: whatever still ran is stopped');
});

test('a file without a URL is refused, naming it (and at most five of them)', async () => {
  const uploads = new HlsUploads(outDir, urlsOf(['360p/init.mp4']), new AbortController().signal);
  try {
    assert.throws(
      () => uploads.uploadNew(['360p/seg-00000.m4s']),
      (error: unknown) =>
        error instanceof InvalidRequestError &&
        error.message ===
          'output_urls has no URL for 360p/seg-00000.m4s: the encode produced more segments than URLs were given',
    );
    const many = Array.from({ length: 7 }, (_, i) => `360p/seg-0000${i}.m4s`);
    assert.throws(
      () => uploads.checkUrls(['360p/init.mp4', ...many]),
      (error: unknown) =>
        error instanceof InvalidRequestError &&
        error.message.startsWith(`output_urls has no URL for ${many.slice(0, 5).join(', ')}:`),
    );
    assert.doesNotThrow(() => uploads.checkUrls(['360p/init.mp4']));
  } finally {
    await uploads.close();
  }
});

test('a failed upload stops the job and is its first failure; the caller cancelling stops it too', async () => {
  refused.add('360p/seg-00001.m4s');
  const uploads = new HlsUploads(outDir, urlsOf(files), new AbortController().signal);
  try {
    uploads.uploadNew(['360p/seg-00001.m4s']);
    await assert.rejects(uploads.uploadRest(files, ['360p/playlist.m3u8']), UrlRefusedError);
    assert.equal(uploads.jobSignal.aborted, true);
    assert.ok(uploads.firstFailure instanceof UrlRefusedError);
    uploads.fail(new Error('a later failure'));
    assert.ok(uploads.firstFailure instanceof UrlRefusedError, 'the first failure is kept');
  } finally {
    refused.clear();
    await uploads.close();
  }

  const caller = new AbortController();
  const cancelled = new HlsUploads(outDir, urlsOf(files), caller.signal);
  assert.equal(cancelled.jobSignal.aborted, false);
  caller.abort();
  assert.equal(cancelled.jobSignal.aborted, true);
  assert.equal(cancelled.firstFailure, undefined, 'a cancel is not a failure of the job');
  await cancelled.close();
});

test("an upload the caller cuts off fails with the caller's reason (a cancel, an abandonment), not a bare abort", async () => {
  const caller = new AbortController();
  const uploads = new HlsUploads(outDir, urlsOf(files), caller.signal);
  try {
    const rest = uploads.uploadRest(files, ['360p/playlist.m3u8']);
    const reason = new JobCancelledError('the caller cancelled the call');
    caller.abort(reason);
    await assert.rejects(rest, (error: unknown) => error === reason);
  } finally {
    await uploads.close();
  }
});
