import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageUnavailableError, UrlRefusedError } from './errors.ts';
import { UploadQueue, uploadFile } from './upload.ts';

// A stand-in for a presigned PUT URL: answers each PUT with the next status of its path's script.
const scripts = new Map<string, number[]>();
const puts: { path: string; body: string; contentType: string | undefined }[] = [];
let server: Server;
let base: string;
const dir = mkdtempSync(join(tmpdir(), 'kino-upload-'));
const file = join(dir, 'seg_00001.ts');

beforeAll(async () => {
  writeFileSync(file, 'segment bytes');
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      puts.push({ path: req.url!, body: Buffer.concat(chunks).toString(), contentType: req.headers['content-type'] });
      const status = scripts.get(req.url!)?.shift() ?? 200;
      res.writeHead(status);
      res.end(status === 200 ? '' : `status ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const attemptsAt = (path: string) => puts.filter((put) => put.path === path).length;

describe('uploadFile', () => {
  it('PUTs the file with its content type and returns its size', async () => {
    assert.equal(await uploadFile(file, `${base}/ok`, 'video/mp2t'), 'segment bytes'.length);
    const put = puts.find((p) => p.path === '/ok');
    assert.deepEqual(put, { path: '/ok', body: 'segment bytes', contentType: 'video/mp2t' });
  });

  it('retries a 5xx and succeeds on a later attempt', async () => {
    scripts.set('/flaky', [503, 500]);
    assert.equal(await uploadFile(file, `${base}/flaky`, 'video/mp2t'), 'segment bytes'.length);
    assert.equal(attemptsAt('/flaky'), 3);
  });

  it('gives up after three attempts with StorageUnavailableError', async () => {
    scripts.set('/down', [503, 503, 503, 503]);
    await assert.rejects(uploadFile(file, `${base}/down`, 'video/mp2t'), (error: unknown) => {
      assert.ok(error instanceof StorageUnavailableError);
      assert.match(error.message, /after 3 attempts: HTTP 503 status 503/);
      return true;
    });
    assert.equal(attemptsAt('/down'), 3);
  });

  it('does not retry a refused URL (4xx)', async () => {
    scripts.set('/refused', [403, 200]);
    await assert.rejects(uploadFile(file, `${base}/refused`, 'video/mp2t'), UrlRefusedError);
    assert.equal(attemptsAt('/refused'), 1);
  });

  it('retries when storage cannot be reached at all', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(
      uploadFile(file, `http://127.0.0.1:${port}/x`, 'video/mp2t'),
      /after 3 attempts: fetch failed/,
    );
  });
});

describe('UploadQueue', () => {
  it('runs at most `limit` uploads at once and counts their bytes', async () => {
    const queue = new UploadQueue(2);
    let running = 0;
    let most = 0;
    for (let i = 0; i < 6; i++) {
      queue.add(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        return 10;
      });
    }
    await queue.drain();
    assert.equal(most, 2);
    assert.equal(queue.bytes, 60);
  });

  it('reports the first failure once, skips later uploads and throws it from drain()', async () => {
    const reported: unknown[] = [];
    const queue = new UploadQueue(1, (error) => reported.push(error));
    const ran: number[] = [];
    queue.add(async () => {
      ran.push(1);
      throw new Error('first');
    });
    queue.add(async () => {
      ran.push(2);
      return 1;
    });
    await assert.rejects(queue.drain(), /first/);
    assert.equal(queue.failed, true);
    assert.deepEqual(ran, [1]);
    assert.equal(reported.length, 1);
  });
});
