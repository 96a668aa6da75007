import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { uploadToStorage, uploadContentType, type UploadProgress, type UploadTransport } from './upload.ts';

/** A fake API and storage that record what the upload asked of them; storage keeps each PUT's bytes. */
function fakeTransport(options: { failPart?: number } = {}) {
  const calls: string[] = [];
  const stored = new Map<string, Blob>();
  const transport: UploadTransport = {
    async api<T>(path: string, init: { method: string; body?: unknown }) {
      calls.push(`${init.method} ${path}`);
      if (path.endsWith('/videos/upload-url')) return { signedURL: 'https://storage/single', bucketPath: 'uploads/a.mp4', expiresAt: 0 } as T;
      if (path.endsWith('/uploads/multipart')) {
        const { fileSize } = init.body as { fileSize: number };
        return { uploadId: 'up1', bucketPath: 'uploads/big.mp4', partSize: 10, partCount: Math.ceil(fileSize / 10), expiresAt: 0 } as T;
      }
      if (path.endsWith('/parts')) {
        const { partNumbers } = init.body as { partNumbers: number[] };
        return { parts: partNumbers.map((partNumber) => ({ partNumber, signedURL: `https://storage/part/${partNumber}` })), expiresAt: 0 } as T;
      }
      if (path.endsWith('/complete')) return { bucketPath: 'uploads/big.mp4', fileSize: [...stored.values()].reduce((n, b) => n + b.size, 0) } as T;
      return {} as T;
    },
    async put(url, blob, { onProgress }) {
      calls.push(`PUT ${url}`);
      if (options.failPart !== undefined && url.endsWith(`/part/${options.failPart}`)) throw new Error('storage refused the part');
      onProgress(Math.floor(blob.size / 2));
      stored.set(url, blob);
    },
  };
  return { transport, calls, stored };
}

const file = (size: number, name = 'clip.mp4', type = 'video/mp4') => Object.assign(new Blob([new Uint8Array(size).map((_, i) => i % 251)], { type }), { name });
const target = { orgId: 'org1', envId: 'env1' };

describe('uploadToStorage', () => {
  it('sends a file up to the threshold in one PUT to an upload URL', async () => {
    const { transport, calls, stored } = fakeTransport();
    const progress: UploadProgress[] = [];
    const result = await uploadToStorage(file(25), target, transport, { multipartThreshold: 25, onProgress: (p) => progress.push(p) });
    assert.deepEqual(result, { bucketPath: 'uploads/a.mp4', fileSize: 25 });
    assert.deepEqual(calls, ['POST /org1/environments/env1/videos/upload-url', 'PUT https://storage/single']);
    assert.equal(stored.get('https://storage/single')?.size, 25);
    assert.deepEqual(progress.map((p) => p.sentBytes), [0, 12, 25]);
    assert.ok(progress.every((p) => p.mode === 'single' && p.totalBytes === 25));
    assert.equal(progress.at(-1)?.fraction, 1);
  });

  it('sends a larger file in parts whose bytes join into the file, then completes the upload', async () => {
    const { transport, calls, stored } = fakeTransport();
    const source = file(25);
    const progress: UploadProgress[] = [];
    const result = await uploadToStorage(source, target, transport, { multipartThreshold: 24, partsInFlight: 2, onProgress: (p) => progress.push(p) });
    assert.deepEqual(result, { bucketPath: 'uploads/big.mp4', fileSize: 25 });
    const partPuts = calls.filter((call) => call.startsWith('PUT')).sort();
    assert.deepEqual(partPuts, ['PUT https://storage/part/1', 'PUT https://storage/part/2', 'PUT https://storage/part/3']);
    assert.equal(calls.at(-1), 'POST /org1/environments/env1/uploads/multipart/up1/complete');
    const joined = new Uint8Array(await new Blob([1, 2, 3].map((n) => stored.get(`https://storage/part/${n}`)!)).arrayBuffer());
    assert.deepEqual(joined, new Uint8Array(await source.arrayBuffer()));
    // Progress only grows, and ends at every byte.
    for (let i = 1; i < progress.length; i += 1) assert.ok(progress[i]!.sentBytes >= progress[i - 1]!.sentBytes, `progress went back at ${i}`);
    assert.equal(progress.at(-1)?.sentBytes, 25);
    assert.ok(progress.every((p) => p.mode === 'multipart'));
  });

  it('aborts the multipart upload when a part fails, and reports the failure', async () => {
    const { transport, calls } = fakeTransport({ failPart: 2 });
    await assert.rejects(uploadToStorage(file(25), target, transport, { multipartThreshold: 24, partsInFlight: 1 }), /storage refused the part/);
    assert.equal(calls.at(-1), 'DELETE /org1/environments/env1/uploads/multipart/up1');
    assert.ok(!calls.some((call) => call.endsWith('/complete')));
    assert.ok(!calls.includes('PUT https://storage/part/3'), 'no part is sent after one failed');
  });
});

describe('uploadContentType', () => {
  it("takes the file's own type when the API accepts it, else the one its name implies", () => {
    assert.equal(uploadContentType(file(1, 'a.webm', 'video/webm')), 'video/webm');
    assert.equal(uploadContentType(file(1, 'a.mov', '')), 'video/quicktime');
    assert.equal(uploadContentType(file(1, 'a.mkv', 'application/octet-stream')), 'video/x-matroska');
  });
});
