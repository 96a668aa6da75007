// The farm on the Temporal server production runs (not the dev server): the server binary built from
// the Temporal server's Go module, its state in PostgreSQL (schema applied by its temporal-sql-tool),
// the `default` namespace registered as an operator would. A video goes from upload to `ready`, plays
// every frame, and its workflow's history is rows of the server's PostgreSQL database.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { startFarm, type Farm } from './farm.ts';

let farm: Farm;
let workDir: string;
let clip: Uint8Array;
let sourceFrames: number;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-farm-temporal-server-'));
  let clipPath: string;
  [farm, clipPath] = await Promise.all([
    startFarm({ temporalServer: 'postgres' }),
    makeClip({ seconds: 4, width: 640, height: 360, fps: 30, audio: true, path: join(workDir, 'clip.mp4') }),
  ]);
  sourceFrames = await countFramesInFile(clipPath);
  clip = await readFile(clipPath);
}, 30 * 60_000);

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

test('upload → ready on the Temporal server with PostgreSQL persistence', async () => {
  await farm.startNode('a');
  const videoId = await farm.submitVideo(clip);
  await farm.waitForStatus(videoId, 'ready', 180_000);

  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  assert.equal(await countDecodedFrames(join(dir, 'hls', 'master.m3u8')), sourceFrames);

  // The workflow ran on this server: its execution is a row of the server's own database.
  const temporalDb = new URL(farm.services.databaseUrl);
  temporalDb.pathname = '/temporal';
  const client = new pg.Client({ connectionString: temporalDb.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ workflow_id: string }>(
      'select workflow_id from current_executions where workflow_id = $1',
      [`video:${videoId}`],
    );
    assert.deepEqual(
      rows.map((row) => row.workflow_id),
      [`video:${videoId}`],
    );
  } finally {
    await client.end();
  }
});
