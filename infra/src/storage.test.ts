import { test } from 'vitest';
import assert from 'node:assert/strict';
import { Storage } from './storage.ts';
import type { StorageConfig } from './config.ts';

// Presigning is local (no request): nothing needs to listen at these addresses.
const config: StorageConfig = {
  S3_ENDPOINT: 'http://seaweedfs:8333',
  S3_BUCKET: 'kino',
  S3_ACCESS_KEY_ID: 'id',
  S3_SECRET_ACCESS_KEY: 'secret',
  S3_REGION: 'us-east-1',
  S3_FORCE_PATH_STYLE: true,
};

test('presigned URLs are signed for S3_PUBLIC_ENDPOINT when it is set, else for S3_ENDPOINT', async () => {
  const inside = new Storage(config);
  const outside = new Storage({ ...config, S3_PUBLIC_ENDPOINT: 'https://s3.example.com' });
  try {
    for (const url of [
      await outside.presignPut('uploads/a.mp4', 60, 'video/mp4', 10),
      await outside.presignGet('uploads/a.mp4', 60),
      await outside.presignUploadPart('uploads/a.mp4', 'upload-1', 1, 10, 60),
    ]) {
      const parsed = new URL(url);
      assert.equal(parsed.origin, 'https://s3.example.com');
      assert.match(parsed.pathname, /^\/kino\/uploads\/a\.mp4$/);
      // Signed for that host: SigV4 covers the Host header, so the host is in the signed headers.
      assert.match(parsed.searchParams.get('X-Amz-SignedHeaders') ?? '', /(^|;)host(;|$)/);
    }
    const internal = new URL(await inside.presignPut('uploads/a.mp4', 60, 'video/mp4', 10));
    assert.equal(internal.origin, 'http://seaweedfs:8333');
    // Not a rewritten copy: the same request signed for another host has another signature.
    const external = new URL(await outside.presignPut('uploads/a.mp4', 60, 'video/mp4', 10));
    assert.equal(internal.searchParams.get('X-Amz-Date'), external.searchParams.get('X-Amz-Date'));
    assert.notEqual(internal.searchParams.get('X-Amz-Signature'), external.searchParams.get('X-Amz-Signature'));
  } finally {
    inside.close();
    outside.close();
  }
});
