import { afterAll, beforeAll, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backup, objectPath, restore, type BackupConfig } from './backup.ts';

// Storage is never reached here: each refusal comes before the first request.
const config: BackupConfig = {
  S3_ENDPOINT: 'http://127.0.0.1:1',
  S3_BUCKET: 'kino',
  S3_ACCESS_KEY_ID: 'key',
  S3_SECRET_ACCESS_KEY: 'secret',
  S3_REGION: 'us-east-1',
  S3_FORCE_PATH_STYLE: true,
};
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kino-backup-unit-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('keeps an object at its key under storage/objects, and refuses a key that would land elsewhere', () => {
  assert.equal(
    objectPath(dir, 'videos/vid_1/hls/360p/seg-00000.m4s'),
    join(dir, 'storage/objects/videos/vid_1/hls/360p/seg-00000.m4s'),
  );
  for (const key of ['../escape', 'videos/../../escape', '/etc/passwd', 'videos/', ''])
    assert.throws(() => objectPath(dir, key), /cannot be kept as a file/, JSON.stringify(key));
});

it('restores only a directory whose backup finished, in a format it knows', async () => {
  await assert.rejects(restore(config, dir), /has no kino-backup\.json: not a backup, or one that did not finish/);
  await writeFile(join(dir, 'kino-backup.json'), JSON.stringify({ format: 2 }));
  await assert.rejects(restore(config, dir), /format 2 is not known/);
});

it('never backs up over a backup', async () => {
  await writeFile(join(dir, 'kino-backup.json'), '{}');
  await assert.rejects(backup(config, dir), /holds a backup already: back up into a new directory/);
});
