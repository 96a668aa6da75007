import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { contentEtag, ObjectCache } from './object-cache.ts';

const dir = mkdtempSync(join(tmpdir(), 'kino-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A storage stand-in that counts GETs and answers slowly enough for requests to overlap. */
function fakeStorage(objects: Record<string, Buffer>, etags: Record<string, string> = {}) {
  const gets: string[] = [];
  return {
    gets,
    async getObjectStream(key: string) {
      gets.push(key);
      await new Promise((r) => setTimeout(r, 20));
      const body = objects[key];
      return body && { body: Readable.from([body]), size: body.length, etag: etags[key] };
    },
  };
}

test('concurrent misses make one storage request; hits come from memory, then disk', async () => {
  const storage = fakeStorage({ 'videos/v/hls/360p/seg-00000.m4s': Buffer.alloc(1000, 1) });
  const cache = new ObjectCache({ storage, dir: join(dir, 'a'), maxBytes: 1 << 20, memoryMaxBytes: 1 << 20 });
  await cache.init();
  const results = await Promise.all(Array.from({ length: 10 }, () => cache.get('videos/v/hls/360p/seg-00000.m4s')));
  assert.equal(storage.gets.length, 1);
  assert.ok(results.every((r) => r?.etag === results[0]!.etag && r.size === 1000));
  // The metrics' meaning: a miss is a storage read; the nine that waited on it were answered without one.
  assert.deepEqual(cache.lookups, { memoryHits: 0, diskHits: 0, joinedHits: 9, misses: 1 });
  const hit = await cache.get('videos/v/hls/360p/seg-00000.m4s');
  assert.equal(hit?.data?.length, 1000, 'small objects are kept in memory');
  assert.equal(cache.lookups.memoryHits, 1);
  assert.deepEqual(readFileSync(hit.path), Buffer.alloc(1000, 1), 'and on disk');
  assert.equal(await cache.get('videos/v/hls/360p/missing.m4s'), undefined);
});

test('the disk bound evicts the least recently used; a restart finds what is left, with its ETags', async () => {
  const objects = Object.fromEntries(
    ['a', 'b', 'c'].map((name) => [`videos/v/hls/360p/${name}.m4s`, Buffer.alloc(400, name.charCodeAt(0))]),
  );
  const storage = fakeStorage(objects);
  const options = { storage, dir: join(dir, 'b'), maxBytes: 1000, memoryMaxBytes: 500 };
  const cache = new ObjectCache(options);
  await cache.init();
  const a = await cache.get('videos/v/hls/360p/a.m4s');
  await cache.get('videos/v/hls/360p/b.m4s');
  await cache.get('videos/v/hls/360p/a.m4s'); // a is now the most recently used
  await cache.get('videos/v/hls/360p/c.m4s'); // over 1000 bytes: b goes
  assert.equal(cache.stats.objects, 2);
  assert.ok(cache.stats.memoryBytes <= 500);
  assert.ok(existsSync(a!.path));
  const restarted = new ObjectCache(options);
  await restarted.init();
  assert.equal(restarted.stats.objects, 2);
  const before = storage.gets.length;
  assert.equal((await restarted.get('videos/v/hls/360p/a.m4s'))?.etag, a!.etag);
  assert.equal(storage.gets.length, before, 'a was read from disk, not storage');
  await restarted.get('videos/v/hls/360p/b.m4s');
  assert.equal(storage.gets.length, before + 1, 'b was evicted and fetched again');
});

test("an object's ETag is storage's own when that is a plain strong tag, else a hash of its bytes", async () => {
  const body = Buffer.alloc(300, 7);
  const keys = ['md5', 'multipart', 'weak', 'none'].map((name) => `videos/v/hls/360p/${name}.m4s`);
  const etags = {
    [keys[0]!]: '"9e107d9d372bb6826bd81d3542a419d6"',
    [keys[1]!]: '"3858f62230ac3c915f300c664312c63f-3"',
    [keys[2]!]: 'W/"9e107d9d372bb6826bd81d3542a419d6"',
  };
  const options = {
    storage: fakeStorage(Object.fromEntries(keys.map((key) => [key, body])), etags),
    dir: join(dir, 'c'),
    maxBytes: 1 << 20,
    memoryMaxBytes: 1 << 20,
  };
  const cache = new ObjectCache(options);
  await cache.init();
  const tags = await Promise.all(keys.map(async (key) => (await cache.get(key))?.etag));
  assert.deepEqual(tags, [etags[keys[0]!], etags[keys[1]!], contentEtag(body), contentEtag(body)]);
  const restarted = new ObjectCache(options);
  await restarted.init();
  assert.deepEqual(
    await Promise.all(keys.map(async (key) => (await restarted.get(key))?.etag)),
    tags,
    'a restart reads the tags back from the file names',
  );
});

test('a miss is readable while it arrives; a read that ends short fails its readers and leaves nothing cached', async () => {
  const key = 'videos/v/hls/360p/seg-00001.m4s';
  const etag = '"9e107d9d372bb6826bd81d3542a419d6"';
  let gets = 0;
  let sendTail: (tail: Buffer | undefined) => void = () => undefined;
  const storage = {
    async getObjectStream() {
      gets++;
      const tail = new Promise<Buffer | undefined>((resolve) => (sendTail = resolve));
      async function* body() {
        yield Buffer.alloc(600, 1);
        const rest = await tail;
        if (!rest) throw new Error('connection reset');
        yield rest;
      }
      return { body: Readable.from(body()), size: 1000, etag };
    },
  };
  const cache = new ObjectCache({ storage, dir: join(dir, 'd'), maxBytes: 1 << 20, memoryMaxBytes: 1 << 20 });
  await cache.init();
  const first = await cache.open(key);
  const whole = cache.get(key);
  await first!.fill!.arrived(599);
  assert.deepEqual(
    first!.fill!.data.subarray(0, 600),
    Buffer.alloc(600, 1),
    'the head is readable before the tail left storage',
  );
  sendTail(undefined);
  await assert.rejects(first!.fill!.arrived(600), /connection reset/);
  await assert.rejects(whole, /connection reset/);
  assert.deepEqual(readdirSync(join(dir, 'd', 'objects')), [], 'no partial file');

  const again = cache.get(key);
  await new Promise((resolve) => setImmediate(resolve));
  sendTail(Buffer.alloc(400, 2));
  const stored = await again;
  assert.equal(gets, 2, 'the failed read was not kept: the next miss reads storage again');
  assert.deepEqual(readFileSync(stored!.path), Buffer.concat([Buffer.alloc(600, 1), Buffer.alloc(400, 2)]));
});

test('getUncached reads storage every time and keeps nothing: a file written again under its key is never stale', async () => {
  const key = 'videos/v/hls/360p/playlist.m3u8';
  const objects: Record<string, Buffer> = { [key]: Buffer.from('planned') };
  const storage = fakeStorage(objects, { [key]: '"9e107d9d372bb6826bd81d3542a419d6"' });
  const cache = new ObjectCache({ storage, dir: join(dir, 'e'), maxBytes: 1 << 20, memoryMaxBytes: 1 << 20 });
  await cache.init();
  const planned = await cache.getUncached(key);
  assert.equal(planned?.data.toString(), 'planned');
  assert.equal(planned?.etag, '"9e107d9d372bb6826bd81d3542a419d6"', "storage's tag, as a cached copy's");
  assert.deepEqual(cache.stats, { objects: 0, diskBytes: 0, memoryObjects: 0, memoryBytes: 0 }, 'nothing kept');
  assert.deepEqual(cache.lookups, { memoryHits: 0, diskHits: 0, joinedHits: 0, misses: 0 }, 'not a cache lookup');
  objects[key] = Buffer.from('measured');
  assert.equal((await cache.getUncached(key))?.data.toString(), 'measured');
  assert.equal(
    (await cache.get(key))?.data?.toString(),
    'measured',
    'the first cached read is of the file as it is now',
  );
  assert.equal(await cache.getUncached('videos/v/hls/360p/none.m3u8'), undefined);
});
