// Segment logs against Debian's ClickHouse server (18.16) over HTTP: the schema migrates, rows
// arrive, a delivery node killed with -9 right after answering loses none of them, and a batch
// shipped twice is counted once.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import { clickHouseMigrations } from '@kino/analytics';
import { createHlsFixture, type HlsFixture } from '@kino/test/support/hls-fixture';
import { startDeliveryStack, type DeliveryStack } from './harness.ts';

let stack: DeliveryStack;
let video: HlsFixture;

beforeAll(async () => {
  // Shipping is slow on purpose: rows stay in the spool until a restart (or a clean stop) ships them.
  stack = await startDeliveryStack({ analytics: 'clickhouse-server', shipIntervalMs: 600_000 });
  video = await createHlsFixture({
    db: stack.db,
    storage: stack.storage,
    workDir: stack.services.dir,
    allowPublicAccess: true,
    orgId: stack.orgId,
    envId: stack.envId,
    seconds: 8,
    ladder: [
      { width: 320, height: 240 },
      { width: 256, height: 144 },
    ],
  });
});

afterAll(async () => {
  await stack?.stop();
});

const segmentUrl = (quality: string, index: number) =>
  `${stack.delivery.url}/v1/public/${video.orgId}/${video.envId}/${video.videoId}/video-${quality}/seg-${String(index).padStart(5, '0')}.m4s`;

/** Fetches every segment of both renditions once, to the last byte; returns how many. */
async function playAllSegments(): Promise<number> {
  let served = 0;
  for (const rendition of video.renditions) {
    for (let i = 0; i < rendition.segmentCount; i++) {
      const response = await fetch(segmentUrl(rendition.key, i));
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      served++;
    }
  }
  return served;
}

async function rowsInClickHouse(): Promise<{ final: number; distinct: number }> {
  const [row] = await stack.clickhouse.query<{ final: number; distinct: number }>(
    `SELECT count() AS final, uniqExact(row_id) AS distinct FROM segment_deliveries FINAL WHERE video_id = '${video.videoId}'`,
  );
  return row!;
}

test('the schema is migrated on the ClickHouse server, with its migrations recorded', async () => {
  const migrations = await stack.clickhouse.query<{ version: number }>(
    'SELECT version FROM schema_migrations FINAL ORDER BY version',
  );
  assert.deepEqual(
    migrations.map((m) => m.version),
    clickHouseMigrations.map((m) => m.version),
  );
  const [server] = await stack.clickhouse.query<{ v: string }>('SELECT version() AS v');
  assert.match(server!.v, /^18\./, 'this is the apt ClickHouse server, not chDB');
});

test('a node killed with -9 right after answering loses no row: the restart ships them, once', async () => {
  const served = await playAllSegments();
  assert.equal(served, 4);
  await stack.delivery.process.kill9();
  assert.equal((await rowsInClickHouse()).final, 0, 'nothing was shipped before the kill');
  const spooled = readdirSync(stack.spoolDir).filter((name) => name.endsWith('.tsv'));
  assert.equal(spooled.length, 1);
  assert.equal(readFileSync(join(stack.spoolDir, spooled[0]!), 'utf8').trim().split('\n').length, served);

  await stack.restartDelivery();
  await waitFor('the spooled rows in ClickHouse', async () => (await rowsInClickHouse()).final === served);
  assert.deepEqual(await rowsInClickHouse(), { final: served, distinct: served });
  // The shipper marks the batch's days after the rows and removes the batch last: wait for that.
  const batches = () => readdirSync(stack.spoolDir).filter((name) => name.startsWith('batch-'));
  await waitFor('the shipped batch removed', () => batches().length === 0);
  assert.deepEqual(batches(), [], 'shipped batches are removed');
});

test('a batch shipped twice (a kill between the insert and its removal) is counted once', async () => {
  const before = (await rowsInClickHouse()).final;
  const served = await playAllSegments();
  await stack.delivery.process.kill9();
  // As if the node had inserted this batch and died before deleting it: it is shipped again.
  const [spooled] = readdirSync(stack.spoolDir).filter((name) => name.startsWith('open-'));
  assert.ok(spooled);
  copyFileSync(
    join(stack.spoolDir, spooled),
    join(stack.spoolDir, spooled.replace(/^open-/, 'batch-').replace(/\.tsv$/, '-copy.tsv')),
  );
  await stack.restartDelivery();
  await waitFor(
    'both copies shipped',
    () => readdirSync(stack.spoolDir).filter((n) => n.startsWith('batch-')).length === 0,
  );
  assert.deepEqual(await rowsInClickHouse(), { final: before + served, distinct: before + served });
});

test('a clean stop ships what is spooled; rows carry the segment, rendition, bytes and access', async () => {
  const before = (await rowsInClickHouse()).final;
  const served = await playAllSegments();
  await stack.delivery.process.stop();
  assert.deepEqual(
    readdirSync(stack.spoolDir).filter((name) => name.endsWith('.tsv')),
    [],
  );
  assert.equal((await rowsInClickHouse()).final, before + served);
  const rows = await stack.clickhouse.query<{ h: number; i: number; bytes: number; access: string; n: number }>(
    `SELECT rendition_height AS h, segment_index AS i, any(bytes) AS bytes, toString(any(access)) AS access, count() AS n
     FROM segment_deliveries FINAL WHERE video_id = '${video.videoId}' GROUP BY h, i ORDER BY h, i`,
  );
  const expected = video.renditions
    .flatMap((r) =>
      Array.from({ length: r.segmentCount }, (_, i) => ({
        h: r.height,
        i,
        bytes: video.objects.get(`videos/${video.videoId}/hls/${r.key}/seg-${String(i).padStart(5, '0')}.m4s`)!.length,
      })),
    )
    .sort((a, b) => a.h - b.h || a.i - b.i);
  assert.deepEqual(
    rows.map(({ h, i, bytes }) => ({ h, i, bytes })),
    expected,
  );
  assert.ok(
    rows.every((r) => r.access === 'public' && r.n === 3),
    'three plays of each segment',
  );
  await stack.restartDelivery();
});
