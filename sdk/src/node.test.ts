import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { Kino as CoreKino } from './index.ts';
import { fileResumeStore, Kino as NodeKino } from './node.ts';

const dir = mkdtempSync(join(tmpdir(), 'kino-sdk-node-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the Node entry', () => {
  it('fileResumeStore keeps one file per key, readable by its owner only, and forgets on delete', async () => {
    const store = fileResumeStore(join(dir, 'uploads'));
    assert.equal(await store.get('a'), undefined);
    await store.set('a', { uploadId: 'mpu_1' });
    await store.set('b/../c', { uploadId: 'mpu_2' });
    assert.deepEqual(await store.get('a'), { uploadId: 'mpu_1' });
    assert.deepEqual(await store.get('b/../c'), { uploadId: 'mpu_2' });
    const files = readdirSync(join(dir, 'uploads'));
    assert.equal(files.length, 2);
    for (const file of files) assert.equal(statSync(join(dir, 'uploads', file)).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'uploads')).mode & 0o777, 0o700);
    await store.delete('a');
    assert.equal(await store.get('a'), undefined);
    assert.equal(readdirSync(join(dir, 'uploads')).length, 1);
  });

  it('the core client refuses a file path, naming the Node entry', async () => {
    const file = join(dir, 'clip.mp4');
    writeFileSync(file, Buffer.alloc(10));
    const kino = new CoreKino({
      apiUrl: 'http://api.test/v1/api',
      apiKey: `svc_test_${'a'.repeat(32)}`,
      fetch: () => Promise.reject(new Error('no call expected')),
    });
    await assert.rejects(kino.uploads.upload('org_1', 'env_1', file), /@kino\/sdk\/node/);
  });

  it('an http(s) URL given to uploads.upload names videos.ingest, without a request or a file lookup', async () => {
    const kino = new NodeKino({
      apiUrl: 'http://api.test/v1/api',
      apiKey: `svc_test_${'a'.repeat(32)}`,
      fetch: () => Promise.reject(new Error('no call expected')),
    });
    await assert.rejects(
      kino.uploads.upload('org_1', 'env_1', 'https://example.com/talk.mp4'),
      /is a URL: Kino fetches it itself with videos\.ingest/,
    );
  });
});
