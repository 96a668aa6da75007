import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { completeDirectUpload, mintDirectUpload, uploadContentType, type SessionApi } from './upload.ts';

/** A fake API that records the calls made to it; a multipart upload has parts of 10 bytes. */
function fakeApi() {
  const calls: string[] = [];
  const api: SessionApi = async <T>(path: string, init: { method: string; body?: unknown }) => {
    calls.push(`${init.method} ${path}`);
    if (path.endsWith('/videos/upload-url'))
      return { signedURL: 'https://storage/single', bucketPath: 'uploads/a.mp4', expiresAt: 7 } as T;
    if (path.endsWith('/uploads/multipart')) {
      const { fileSize } = init.body as { fileSize: number };
      return {
        uploadId: 'up1',
        bucketPath: 'uploads/big.mp4',
        partSize: 10,
        partCount: Math.ceil(fileSize / 10),
        expiresAt: 0,
      } as T;
    }
    if (path.endsWith('/parts')) {
      const { partNumbers } = init.body as { partNumbers: number[] };
      return {
        parts: partNumbers.map((partNumber) => ({ partNumber, signedURL: `https://storage/part/${partNumber}` })),
        expiresAt: 100 + partNumbers[0]!,
      } as T;
    }
    if (path.endsWith('/complete')) return { bucketPath: 'uploads/big.mp4', fileSize: 0 } as T;
    throw new Error(`unexpected ${path}`);
  };
  return { api, calls };
}

const target = { orgId: 'org1', envId: 'env1' };

describe('mintDirectUpload', () => {
  it('mints one upload URL for a file up to the threshold, with the type the URL is signed for', async () => {
    const { api, calls } = fakeApi();
    const upload = await mintDirectUpload(api, target, { name: 'clip.mov', size: 25, type: '' }, 25);
    assert.deepEqual(upload, {
      kind: 'single',
      bucketPath: 'uploads/a.mp4',
      fileSize: 25,
      contentType: 'video/quicktime',
      signedURL: 'https://storage/single',
      expiresAt: 7,
    });
    assert.deepEqual(calls, ['POST /org1/environments/env1/videos/upload-url']);
    assert.equal(await completeDirectUpload(api, target, upload), 'uploads/a.mp4');
    assert.equal(calls.length, 1, 'a single upload has nothing to complete');
  });

  it("mints a multipart upload with every part's URL, asked 100 at a time, and completes it", async () => {
    const { api, calls } = fakeApi();
    const upload = await mintDirectUpload(api, target, { name: 'big.mp4', size: 2005, type: 'video/mp4' }, 24);
    assert.equal(upload.kind, 'multipart');
    if (upload.kind !== 'multipart') return;
    assert.equal(upload.partCount, 201);
    assert.deepEqual(
      upload.parts.map((part) => part.partNumber),
      Array.from({ length: 201 }, (_, index) => index + 1),
    );
    assert.equal(upload.parts[200]!.signedURL, 'https://storage/part/201');
    assert.equal(upload.expiresAt, 101, 'the earliest of the batches');
    assert.equal(calls.filter((call) => call.endsWith('/parts')).length, 3);
    assert.equal(await completeDirectUpload(api, target, upload), 'uploads/big.mp4');
    assert.equal(calls.at(-1), 'POST /org1/environments/env1/uploads/multipart/up1/complete');
  });
});

describe('uploadContentType', () => {
  it("takes the file's own type when the API accepts it, else the one its name implies", () => {
    assert.equal(uploadContentType({ name: 'a.webm', type: 'video/webm' }), 'video/webm');
    assert.equal(uploadContentType({ name: 'a.mov', type: '' }), 'video/quicktime');
    assert.equal(uploadContentType({ name: 'a.mkv', type: 'application/octet-stream' }), 'video/x-matroska');
    // Camera and broadcast files, whose types browsers name in several ways (.mts as `model/vnd.mts`).
    assert.equal(uploadContentType({ name: '00001.MTS', type: 'model/vnd.mts' }), 'video/mp2t');
    assert.equal(uploadContentType({ name: 'news.ts', type: 'video/vnd.dlna.mpeg-tts' }), 'video/mp2t');
    assert.equal(uploadContentType({ name: 'A001C002.mxf', type: '' }), 'application/mxf');
  });
});
