// The local cache in front of object storage: every playlist, init segment, media segment and
// thumbnail a node serves is fetched from S3 once and then read from local disk
// (DELIVERY_CACHE_DIR), bounded in bytes with least-recently-used eviction. Small objects are also
// kept in memory (a second, smaller LRU), so hot segments are answered without touching the disk.
// Concurrent misses for one key make one S3 request (single flight), and a miss is served while it
// arrives: `open` answers as soon as storage has sent the GET's headers, with the object's `fill`,
// the one buffer its bytes are copied into as they come, which every viewer of the object streams
// from meanwhile (fill.ts). Once the last byte is in, that buffer is written to the cache file in
// one call and kept in memory; a GET that fails or ends short leaves no file and no entry.
//
// Objects under videos/{id}/hls are immutable once a video is ready, so a cached copy never goes
// stale; whether a video may be served at all is decided before the cache is asked (a deleted
// video's files simply age out). The one exception is a video still being made just in time: its
// playlists are written again once its ladder is complete, so they are read past the cache
// (`getUncached`) until then, and never kept. A low-latency broadcast's recording may be ready
// while its playlists still list their last parts, written again without them 18 s after its end: a
// copy kept here stays playable, since the parts it lists stay stored (docs/decisions/live.md, "The
// end of a broadcast"). A file name carries a tag of the content (`name~<tag>`), which is
// the ETag, so a restarted node knows the ETags of what it has without reading it again. The tag is
// storage's own ETag (the MD5 S3 computed on upload) rather than a hash of our own: hashing 2 MB
// (1.2 ms) on every miss cost about a seventh of the misses a node served, measured in pairs.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { readBody, type Logger, type Storage } from '@kino/infra';
import { ObjectFill } from './fill.ts';

export interface CachedObject {
  key: string;
  /** The local file. */
  path: string;
  size: number;
  /** Strong ETag, quoted: a hash of the content. */
  etag: string;
  /** The bytes, when the object is in the memory hot set. */
  data?: Buffer;
  /** Set while the object is still arriving from storage (`open` only): read it from here, not `path`. */
  fill?: ObjectFill;
}

/** An object read whole from storage and not kept (`getUncached`). */
export interface UncachedObject {
  key: string;
  size: number;
  /** Strong ETag, quoted, as a cached object's would be. */
  etag: string;
  data: Buffer;
}

/** A miss under way: the object as served meanwhile, and the cached object once it is stored. */
interface Fetching {
  object: CachedObject;
  stored: Promise<CachedObject>;
}

export interface ObjectCacheOptions {
  storage: Pick<Storage, 'getObjectStream'>;
  dir: string;
  maxBytes: number;
  memoryMaxBytes: number;
  /** Larger objects are served from disk only. */
  memoryMaxObjectBytes?: number;
  logger?: Logger;
}

export class ObjectCache {
  /** Disk index in LRU order: the first entry is the least recently used. */
  private readonly index = new Map<string, CachedObject>();
  private diskBytes = 0;
  private readonly memory = new Map<string, Buffer>();
  private memoryBytes = 0;
  private readonly inflight = new Map<string, Promise<Fetching | undefined>>();
  private readonly objectsDir: string;
  private readonly tmpDir: string;
  private readonly memoryMaxObjectBytes: number;
  /** Lookups by outcome since start (plain numbers: the hot path only increments them; metrics read them). */
  /** Misses count storage reads; a lookup that joins a read under way is a `joinedHits`. */
  readonly lookups = { memoryHits: 0, diskHits: 0, joinedHits: 0, misses: 0 };

  private readonly options: ObjectCacheOptions;
  constructor(options: ObjectCacheOptions) {
    this.options = options;
    this.objectsDir = join(options.dir, 'objects');
    this.tmpDir = join(options.dir, 'tmp');
    this.memoryMaxObjectBytes = options.memoryMaxObjectBytes ?? 8 * 1024 * 1024;
  }

  /** Loads the index of what is already on disk (oldest first) and trims it to the bound. */
  async init(): Promise<void> {
    mkdirSync(this.objectsDir, { recursive: true });
    await rm(this.tmpDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true });
    const found: { object: CachedObject; mtimeMs: number }[] = [];
    for (const entry of await readdir(this.objectsDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const marker = entry.name.lastIndexOf('~');
      if (marker <= 0) {
        await unlink(path).catch(() => undefined);
        continue;
      }
      const info = await stat(path);
      const key = relative(this.objectsDir, join(entry.parentPath, entry.name.slice(0, marker)))
        .split(sep)
        .join('/');
      found.push({
        object: { key, path, size: info.size, etag: `"${entry.name.slice(marker + 1)}"` },
        mtimeMs: info.mtimeMs,
      });
    }
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const { object } of found) this.remember(object);
    this.evict();
    this.options.logger?.info({ objects: this.index.size, bytes: this.diskBytes }, 'delivery cache loaded');
  }

  /** The whole object, from memory, disk or storage (in that order); undefined when storage has none. */
  async get(key: string): Promise<CachedObject | undefined> {
    return this.lookup(key) ?? (await (await this.fetching(key))?.stored);
  }

  /**
   * The object as `get` finds it, except that a miss answers once storage has sent the headers
   * (size and ETag known), with `fill` carrying the bytes as they arrive.
   */
  async open(key: string): Promise<CachedObject | undefined> {
    return this.lookup(key) ?? (await this.fetching(key))?.object;
  }

  /**
   * The object straight from storage, neither looked up nor kept (nor counted): a file that is
   * written again under its key, a just-in-time video's playlists until its ladder is complete.
   */
  async getUncached(key: string): Promise<UncachedObject | undefined> {
    const stored = await this.options.storage.getObjectStream(key);
    if (!stored) return undefined;
    const data = await readBody(stored.body);
    return { key, size: data.length, etag: `"${storageTag(stored.etag) ?? contentHash(data)}"`, data };
  }

  /** The object when it is cached (memory or disk), counted as a hit; undefined on a miss. */
  private lookup(key: string): CachedObject | undefined {
    const cached = this.index.get(key);
    if (!cached) return undefined;
    this.index.delete(key);
    this.index.set(key, cached);
    const data = this.memory.get(key);
    if (data) {
      this.lookups.memoryHits++;
      this.memory.delete(key);
      this.memory.set(key, data);
      return { ...cached, data };
    }
    this.lookups.diskHits++;
    return cached;
  }

  /** The miss under way for this key, started when there is none (single flight). */
  private fetching(key: string): Promise<Fetching | undefined> {
    let pending = this.inflight.get(key);
    if (pending) this.lookups.joinedHits++;
    else {
      this.lookups.misses++;
      const started = this.fetch(key);
      pending = started;
      this.inflight.set(key, started);
      // Until the object is stored (or the read failed), later misses join this one.
      const settled = () => {
        if (this.inflight.get(key) === started) this.inflight.delete(key);
      };
      started.then((fetching) => (fetching ? fetching.stored.then(settled, settled) : settled()), settled);
    }
    return pending;
  }

  /** Stores bytes made locally (a resized thumbnail) as if fetched. */
  put(key: string, data: Buffer): Promise<CachedObject> {
    return this.stored(key, data);
  }

  get stats() {
    return {
      objects: this.index.size,
      diskBytes: this.diskBytes,
      memoryObjects: this.memory.size,
      memoryBytes: this.memoryBytes,
    };
  }

  private async fetch(key: string): Promise<Fetching | undefined> {
    if (key.includes('..') || key.startsWith('/')) throw new Error(`refusing to cache key ${key}`);
    const stored = await this.options.storage.getObjectStream(key);
    if (!stored) return undefined;
    const tag = storageTag(stored.etag);
    if (stored.size === undefined || !tag) {
      // The ETag is sent before the bytes, so without storage's own tag (or length) the body is read
      // whole and hashed first, as bodies made on the fly are.
      const data = await readBody(stored.body);
      const object = await this.stored(key, data, tag);
      return { object, stored: Promise.resolve(object) };
    }
    const fill = new ObjectFill(stored.size);
    const object: CachedObject = {
      key,
      path: join(this.objectsDir, `${key}~${tag}`),
      size: stored.size,
      etag: `"${tag}"`,
      fill,
    };
    return { object, stored: fill.readFrom(stored.body).then(() => this.stored(key, fill.data, tag)) };
  }

  /** Stores bytes and answers the cached object, with its bytes when they are kept in memory. */
  private async stored(key: string, data: Buffer, tag?: string): Promise<CachedObject> {
    const object = await this.store(key, data, tag);
    return { ...object, data: this.memory.get(key) };
  }

  private async store(key: string, data: Buffer, tag = contentHash(data)): Promise<CachedObject> {
    const path = join(this.objectsDir, `${key}~${tag}`);
    const tmp = join(this.tmpDir, randomBytes(8).toString('hex'));
    // fs/promises writes 512 KiB at a time. Writing the body in one system call (callback
    // writeFile) served 0.71 of the misses at 32 connections, measured in pairs.
    await writeFile(tmp, data);
    await mkdir(dirname(path), { recursive: true });
    await rename(tmp, path);
    const previous = this.index.get(key);
    if (previous && previous.path !== path) this.forget(previous, true);
    const object: CachedObject = { key, path, size: data.length, etag: `"${tag}"` };
    this.remember(object);
    if (data.length <= this.memoryMaxObjectBytes && data.length <= this.options.memoryMaxBytes) {
      this.memory.set(key, data);
      this.memoryBytes += data.length;
    }
    this.evict();
    return object;
  }

  private remember(object: CachedObject): void {
    const previous = this.index.get(object.key);
    if (previous) this.diskBytes -= previous.size;
    this.index.delete(object.key);
    this.index.set(object.key, object);
    this.diskBytes += object.size;
  }

  private forget(object: CachedObject, removeFile: boolean): void {
    if (this.index.get(object.key) === object) {
      this.index.delete(object.key);
      this.diskBytes -= object.size;
    }
    const data = this.memory.get(object.key);
    if (data) {
      this.memory.delete(object.key);
      this.memoryBytes -= data.length;
    }
    // A reader that already opened the file keeps reading it after the unlink.
    if (removeFile) void unlink(object.path).catch(() => undefined);
  }

  private evict(): void {
    while (this.memoryBytes > this.options.memoryMaxBytes) {
      const [key, data] = this.memory.entries().next().value as [string, Buffer];
      this.memory.delete(key);
      this.memoryBytes -= data.length;
    }
    while (this.diskBytes > this.options.maxBytes && this.index.size > 1) {
      const oldest = this.index.values().next().value as CachedObject;
      this.forget(oldest, true);
    }
  }
}

/** An object's bytes: from memory, or its cached file. */
export async function bytesOf(object: CachedObject | UncachedObject): Promise<Buffer> {
  return object.data ?? readFile((object as CachedObject).path);
}

/**
 * Storage's ETag as a file-name tag, when it is a plain strong one: S3 sends the MD5 of a simple
 * upload or `<md5>-<parts>` of a multipart one, in quotes. Anything else (a weak `W/` tag, none)
 * gives undefined, and the cache hashes the bytes itself.
 */
export function storageTag(etag: string | undefined): string | undefined {
  return etag?.match(/^"([\w-]{1,64})"$/)?.[1];
}

/** The content hash that names a cached file and makes its ETag; bodies made on the fly use it too. */
export function contentHash(data: Buffer): string {
  return createHash('sha256').update(data).digest('base64url').slice(0, 32);
}

/** A strong ETag for bytes made on the fly (rewritten playlists, pages): the same as a cached object's. */
export function contentEtag(data: Buffer): string {
  return `"${contentHash(data)}"`;
}
