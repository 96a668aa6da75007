// The Storage abstraction against a real S3 (SeaweedFS, which checks signatures): the only way
// Kino reaches object storage, so its listing and deletes are checked here once.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Storage } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';

let services: TestServices;
let storage: Storage;

beforeAll(async () => {
  services = await startTestServices({ s3: true });
  storage = new Storage(services.storage);
});

afterAll(async () => {
  storage?.close();
  await services?.stop();
});

test('put, head, get, list by prefix, delete one, delete many, delete a prefix', async () => {
  const keys = [
    'videos/vid_s/hls/master.m3u8',
    'videos/vid_s/hls/360p/seg-00000.m4s',
    'videos/vid_s/thumbs/default.jpg',
    'videos/vid_t/hls/master.m3u8',
  ];
  for (const key of keys) await storage.put(key, `body of ${key}`, 'application/octet-stream');
  assert.equal((await storage.head(keys[0]!))?.size, `body of ${keys[0]}`.length);
  assert.equal((await storage.get(keys[1]!))?.toString(), `body of ${keys[1]}`);
  // A big body arrives in many chunks; delivery's cache names files by this ETag (the upload's MD5).
  const big = randomBytes(3 * 1024 * 1024 + 7);
  await storage.put(keys[1]!, big, 'video/iso.segment');
  const got = await storage.getObject(keys[1]!);
  assert.ok(got?.body.equals(big));
  assert.equal(got?.etag, `"${createHash('md5').update(big).digest('hex')}"`);
  assert.equal(await storage.getObject('videos/vid_s/never-there'), undefined);
  // Keys as users name uploads: every character SigV4 escapes, read back by the signed GET.
  const named = "uploads/org_s/env_s/vid_s/my holiday (1) [final] it's 100% *ok*, ünïcode+&=.mp4";
  await storage.put(named, 'named body', 'video/mp4');
  assert.equal((await storage.get(named))?.toString(), 'named body');
  await storage.delete(named);
  assert.deepEqual(
    await storage.list('videos/vid_s/'),
    [keys[1], keys[0], keys[2]],
    'lexicographic, under the prefix only',
  );

  await storage.delete(keys[2]!);
  assert.equal(await storage.head(keys[2]!), undefined);
  await storage.delete(keys[2]!); // gone already: fine

  await storage.deleteMany([keys[1]!, 'videos/vid_s/never-there']);
  assert.deepEqual(await storage.list('videos/vid_s/'), [keys[0]]);

  assert.equal(await storage.deletePrefix('videos/vid_s/'), 1);
  assert.deepEqual(await storage.list('videos/vid_s/'), []);
  assert.deepEqual(await storage.list('videos/vid_t/'), [keys[3]], 'another prefix is untouched');
});
