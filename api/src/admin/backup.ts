// `kino admin backup <dir>` and `kino admin restore <dir>`: the bucket and the analytics store to
// files and back, the part of a backup that PostgreSQL's own pg_dump does not cover
// (docs/production.md#backups-and-restore, docs/decisions/operations.md#backups). They run with the
// bootstrap's environment (S3_*, CLICKHOUSE_URL), from the Kino image, which has neither awscli
// nor clickhouse-client: through the S3 client and the ClickHouse HTTP client Kino already uses.
//
// A backup directory:
//   storage/objects/<key>     every object of the bucket, at its key
//   storage/objects.jsonl     one line per object: {key, size, contentType}
//   analytics/<table>.tsv     every table of Kino's ClickHouse migrations (@kino/analytics backup.ts)
//   kino-backup.json          what the directory holds, written last: a backup cut short has none,
//                             and restore refuses it
// (the operator's pg_dump files sit beside them).
import { createWriteStream } from 'node:fs';
import { access, mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseConfig, storageConfigShape, Storage, type StorageConfig } from '@kino/infra';
import { backupAnalytics, ClickHouseHttp, restoreAnalytics, type AnalyticsBackup } from '@kino/analytics';
import { apiConfigShape } from '../config.ts';

/** What backup and restore read: the bucket's settings and the analytics store's URL, as bootstrap reads them. */
export const backupConfigShape = {
  ...storageConfigShape,
  CLICKHOUSE_URL: apiConfigShape.CLICKHOUSE_URL,
};

export type BackupConfig = StorageConfig & { CLICKHOUSE_URL?: string };

export function parseBackupConfig(source: Record<string, string | undefined> = process.env): BackupConfig {
  return parseConfig(backupConfigShape, source);
}

/** kino-backup.json: what a backup directory holds. */
export interface BackupManifest {
  /** This layout's version: a restore refuses one it does not know. */
  format: 1;
  createdAt: string;
  storage: { bucket: string; objects: number; bytes: number };
  /** null: CLICKHOUSE_URL was unset, no analytics were backed up. */
  analytics: AnalyticsBackup | null;
}

interface StoredObject {
  key: string;
  size: number;
  contentType: string;
}

const manifestFile = (dir: string) => join(dir, 'kino-backup.json');
const objectsDir = (dir: string) => join(dir, 'storage', 'objects');
const objectIndex = (dir: string) => join(dir, 'storage', 'objects.jsonl');
const analyticsDir = (dir: string) => join(dir, 'analytics');

/** Objects copied at once: storage answers each GET or PUT in its own time. */
const objectWorkers = 8;
/** Objects put back at once: each holds its body (up to a part) in memory. */
const restoreWorkers = 4;
/** Objects larger than this go back as a multipart upload of parts this size (a single PUT stops at 5 GB). */
const partBytes = 64 * 1024 * 1024;

/** Runs `work` on every item, `workers` at a time. */
async function inParallel<T>(items: readonly T[], workers: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(workers, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** The file an object's key is kept in; a key that would land outside `dir/storage/objects` is refused. */
export function objectPath(dir: string, key: string): string {
  const root = resolve(objectsDir(dir));
  const path = resolve(root, key);
  if (!path.startsWith(`${root}/`) || key.endsWith('/'))
    throw new Error(`object key ${JSON.stringify(key)} cannot be kept as a file`);
  return path;
}

export async function backup(
  config: BackupConfig,
  dir: string,
  progress: (line: string) => void = () => undefined,
): Promise<BackupManifest> {
  const exists = await access(manifestFile(dir)).then(
    () => true,
    () => false,
  );
  if (exists) throw new Error(`${dir} holds a backup already: back up into a new directory`);
  const storage = new Storage(config);
  let stored: StoredObject[];
  try {
    const keys = await storage.list('');
    progress(`Bucket ${config.S3_BUCKET}: ${keys.length} objects to copy.`);
    const copied: (StoredObject | undefined)[] = [];
    let done = 0;
    await inParallel([...keys.entries()], objectWorkers, async ([index, key]) => {
      // A folder marker (an empty object that S3 consoles make): nothing of Kino's, and no file name.
      if (key.endsWith('/')) return;
      const path = objectPath(dir, key);
      const object = await storage.getObjectStream(key);
      // Deleted since the listing (a video deleted meanwhile): nothing to keep.
      if (!object) return;
      await mkdir(dirname(path), { recursive: true });
      await pipeline(object.body, createWriteStream(path));
      const { size } = await stat(path);
      copied[index] = { key, size, contentType: object.contentType ?? 'application/octet-stream' };
      done += 1;
      if (done % 1000 === 0) progress(`  ${done} of ${keys.length} objects copied.`);
    });
    stored = copied.filter((object) => object !== undefined);
  } finally {
    storage.close();
  }
  await mkdir(dirname(objectIndex(dir)), { recursive: true });
  await writeFile(objectIndex(dir), stored.map((object) => `${JSON.stringify(object)}\n`).join(''));

  let analytics: AnalyticsBackup | null = null;
  if (config.CLICKHOUSE_URL) {
    const clickhouse = new ClickHouseHttp(config.CLICKHOUSE_URL, 10 * 60_000);
    try {
      analytics = await backupAnalytics(clickhouse, analyticsDir(dir));
    } finally {
      await clickhouse.close();
    }
  }
  const manifest: BackupManifest = {
    format: 1,
    createdAt: new Date().toISOString(),
    storage: {
      bucket: config.S3_BUCKET,
      objects: stored.length,
      bytes: stored.reduce((sum, object) => sum + object.size, 0),
    },
    analytics,
  };
  await writeFile(manifestFile(dir), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Puts one backed-up object back: one PUT, or a multipart upload for one larger than a part. */
async function restoreObject(storage: Storage, dir: string, object: StoredObject): Promise<void> {
  const path = objectPath(dir, object.key);
  const { size } = await stat(path);
  if (size !== object.size) throw new Error(`${path} has ${size} bytes, the backup recorded ${object.size}`);
  if (size <= partBytes) {
    await storage.put(object.key, await readFile(path), object.contentType);
    return;
  }
  const uploadId = await storage.createMultipartUpload(object.key, object.contentType);
  const file = await open(path);
  try {
    const parts = [];
    for (let offset = 0, partNumber = 1; offset < size; offset += partBytes, partNumber += 1) {
      const part = Buffer.alloc(Math.min(partBytes, size - offset));
      await file.read(part, 0, part.length, offset);
      parts.push(await storage.uploadPart(object.key, uploadId, partNumber, part));
    }
    await storage.completeMultipartUpload(object.key, uploadId, parts);
  } catch (error) {
    await storage.abortMultipartUpload(object.key, uploadId).catch(() => undefined);
    throw error;
  } finally {
    await file.close();
  }
}

/** The objects a backup recorded, from its index. */
async function readObjectIndex(dir: string): Promise<StoredObject[]> {
  const lines = (await readFile(objectIndex(dir), 'utf8')).split('\n').filter(Boolean);
  return lines.map((line) => JSON.parse(line) as StoredObject);
}

/**
 * Puts a backup back: every object into the bucket (created when missing; an object already there
 * is written again), and the analytics tables into the store (CLICKHOUSE_URL). Running it twice
 * gives the same bucket and the same analytics answers.
 */
export async function restore(
  config: BackupConfig,
  dir: string,
  progress: (line: string) => void = () => undefined,
): Promise<BackupManifest> {
  const manifest = JSON.parse(
    await readFile(manifestFile(dir), 'utf8').catch(() => {
      throw new Error(`${dir} has no kino-backup.json: not a backup, or one that did not finish`);
    }),
  ) as BackupManifest;
  if (manifest.format !== 1) throw new Error(`${manifestFile(dir)}: format ${String(manifest.format)} is not known`);
  if (manifest.analytics && !config.CLICKHOUSE_URL)
    throw new Error('the backup holds analytics: set CLICKHOUSE_URL to restore them');

  const storage = new Storage(config);
  try {
    await storage.createBucketIfMissing();
    const objects = await readObjectIndex(dir);
    progress(`Bucket ${config.S3_BUCKET}: ${objects.length} objects to put back.`);
    let done = 0;
    await inParallel(objects, restoreWorkers, async (object) => {
      await restoreObject(storage, dir, object);
      done += 1;
      if (done % 1000 === 0) progress(`  ${done} of ${objects.length} objects put back.`);
    });
  } finally {
    storage.close();
  }

  if (manifest.analytics) {
    const clickhouse = new ClickHouseHttp(config.CLICKHOUSE_URL!, 10 * 60_000);
    try {
      await restoreAnalytics(clickhouse, analyticsDir(dir), manifest.analytics);
    } finally {
      await clickhouse.close();
    }
  }
  return manifest;
}
