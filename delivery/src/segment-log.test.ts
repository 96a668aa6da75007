import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@kino/infra';
import { ClickHouseHttp, clickHouseMigrations, fromTabSeparatedField, type SegmentDelivery } from '@kino/analytics';
import { waitFor } from '@kino/dev';
import { SegmentLog } from './segment-log.ts';

// A stand-in for ClickHouse's HTTP interface that records inserted rows and can be made to fail.
let inserted: Record<string, unknown>[] = [];
let marks: string[] = [];
let failing = false;
/** Inserts wait for this before answering (a slow ClickHouse); `onInsert` hears each one arrive. */
let insertGate: Promise<void> = Promise.resolve();
let onInsert = () => {};
let server: Server;
let url: string;
const dir = mkdtempSync(join(tmpdir(), 'kino-spool-'));
const logger = createLogger('test', 'silent');

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const query = new URL(req.url!, 'http://x').searchParams.get('query') ?? '';
      const body = Buffer.concat(chunks).toString();
      if (failing) {
        res.writeHead(500);
        res.end('Code: 210. DB::Exception: down');
        return;
      }
      if (query.startsWith('INSERT INTO segment_deliveries')) {
        onInsert();
        await insertGate;
        inserted.push(...parseRows(query, body));
      }
      if (body.includes('INSERT INTO segment_rollup_marks') && body.includes('arrayJoin')) marks.push(body);
      // The schema check: answer the schema_migrations read as if every migration had run.
      res.writeHead(200);
      res.end(
        body.includes('FROM schema_migrations')
          ? JSON.stringify({ meta: [], data: clickHouseMigrations.map((m) => ({ version: m.version })) })
          : '',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The rows of an INSERT's body, as ClickHouse reads them: TabSeparated in the query's columns, or JSONEachRow. */
function parseRows(query: string, body: string): Record<string, unknown>[] {
  const lines = body.split('\n').filter(Boolean);
  const [, columns, format] = /\((.*)\) FORMAT (\w+)$/.exec(query)!;
  if (format === 'JSONEachRow') return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(format, 'TabSeparated');
  const names = columns!.split(', ');
  return lines.map((line) => {
    const fields = line.split('\t');
    assert.equal(fields.length, names.length, line);
    return Object.fromEntries(
      names.map((name, i) => [name, /^\d+$/.test(fields[i]!) ? Number(fields[i]) : fromTabSeparatedField(fields[i]!)]),
    );
  });
}

const delivery = (segmentIndex: number): SegmentDelivery => ({
  orgId: 'org_1',
  envId: 'env_1',
  videoId: 'vid_1',
  renditionHeight: 360,
  segmentIndex,
  bytes: 1000,
  access: 'public',
});

test('rows are spooled at once and shipped in batches with unique row ids', async () => {
  inserted = [];
  const spool = join(dir, 'a');
  const log = SegmentLog.open({
    dir: spool,
    clickHouse: new ClickHouseHttp(url),
    nodeId: 'n1',
    shipIntervalMs: 100,
    logger,
  });
  await Promise.all([0, 1, 2, 3, 4].map((i) => log.record(delivery(i))));
  const open = readdirSync(spool).filter((name) => name.startsWith('open-'));
  assert.equal(open.length, 1, 'rows go to an open spool file first');
  assert.equal(readFileSync(join(spool, open[0]!), 'utf8').split('\n').length - 1, 5, 'each row written once recorded');
  await waitFor('five rows shipped', () => inserted.length === 5);
  assert.deepEqual(
    inserted.map((r) => r.segment_index),
    [0, 1, 2, 3, 4],
  );
  assert.equal(new Set(inserted.map((r) => r.row_id)).size, 5);
  assert.match(String(inserted[0]!.served_at), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  await log.close();
  assert.deepEqual(readdirSync(spool), [], 'nothing left behind after a clean stop');
});

test('rows wait on disk while ClickHouse is down and are shipped by the next process', async () => {
  inserted = [];
  failing = true;
  const spool = join(dir, 'b');
  const first = SegmentLog.open({
    dir: spool,
    clickHouse: new ClickHouseHttp(url),
    nodeId: 'n1',
    shipIntervalMs: 50,
    logger,
  });
  await Promise.all([0, 1, 2].map((i) => first.record(delivery(i))));
  await waitFor('a sealed batch', () => readdirSync(spool).some((name) => name.startsWith('batch-')));
  // What metrics read: the rows wait, the failures are counted, the lag grows with the oldest row's age.
  await waitFor('a failed shipping pass', () => first.counts.shipFailures >= 1);
  assert.equal(first.counts.spooledRows, 3);
  assert.equal(first.counts.shippedRows, 0);
  const waiting = await first.spoolState(Date.now() + 60_000);
  assert.ok(waiting.files >= 1 && waiting.bytes > 0, JSON.stringify(waiting));
  assert.ok(waiting.oldestRowAgeSeconds >= 60, JSON.stringify(waiting));
  await first.close(200);
  assert.equal(inserted.length, 0);
  failing = false;
  const second = SegmentLog.open({
    dir: spool,
    clickHouse: new ClickHouseHttp(url),
    nodeId: 'n1',
    shipIntervalMs: 50,
    logger,
  });
  await waitFor('the spooled rows shipped', () => inserted.length === 3);
  await waitFor('the spool empty', async () => (await second.spoolState()).files === 0);
  assert.deepEqual(await second.spoolState(), { files: 0, bytes: 0, oldestRowAgeSeconds: 0 });
  assert.equal(second.counts.shippedRows, 3, 'rows replayed from the previous process count as shipped');
  await second.close();
});

test('a second process cannot take a spool directory in use', async () => {
  const spool = join(dir, 'c');
  const first = SegmentLog.open({
    dir: spool,
    clickHouse: new ClickHouseHttp(url),
    nodeId: 'n1',
    shipIntervalMs: 1000,
    logger,
  });
  // Pretend a live other process (our parent) holds the lock.
  writeFileSync(join(spool, 'spool.lock'), String(process.ppid));
  assert.throws(
    () =>
      SegmentLog.open({ dir: spool, clickHouse: new ClickHouseHttp(url), nodeId: 'n2', shipIntervalMs: 1000, logger }),
    /in use by process/,
  );
  writeFileSync(join(spool, 'spool.lock'), String(process.pid));
  await first.close();
});

test('a batch with a torn tail ships its complete rows and marks the days they hold', async () => {
  inserted = [];
  marks = [];
  const spool = join(dir, 'd');
  mkdirSync(spool, { recursive: true });
  const row = (i: number, servedAt: string, orgId: string) =>
    `r-${i}\t${servedAt}\t${orgId}\tenv_1\tvid_1\t360\t${i}\t1\tpublic\tn1`;
  // As a machine crash leaves it: two whole rows, then half a row and no newline.
  const torn = row(2, '2026-03-03 00:00:00', 'org_3').slice(0, 30);
  writeFileSync(
    join(spool, 'batch-1000-1-000000.tsv'),
    `${row(0, '2026-03-01 10:00:00', 'org_1')}\n${row(1, '2026-03-02 23:59:59', 'org_2')}\n${torn}`,
  );
  const log = SegmentLog.open({
    dir: spool,
    clickHouse: new ClickHouseHttp(url),
    nodeId: 'n1',
    shipIntervalMs: 50,
    logger,
  });
  await waitFor('the batch shipped', () => !readdirSync(spool).some((name) => name.startsWith('batch-')));
  assert.deepEqual(
    inserted.map((r) => r.row_id),
    ['r-0', 'r-1'],
  );
  assert.equal(marks.length, 1);
  assert.match(marks[0]!, /\('org_1', '2026-03-01'\), \('org_2', '2026-03-02'\)\]/);
  await log.close();
});

test('a clean stop while a ship is under way ships the rows recorded since, too', async () => {
  inserted = [];
  let open!: () => void;
  insertGate = new Promise((resolve) => (open = resolve));
  const spool = join(dir, 'e');
  mkdirSync(spool, { recursive: true });
  // A batch a previous process left: the new process starts shipping it at once, and the insert hangs.
  // An older node's (JSONEachRow lines), which is still shipped as such.
  writeFileSync(
    join(spool, 'batch-1-1-000000.ndjson'),
    `${JSON.stringify({ row_id: 'old-0', served_at: '2026-11-23 00:00:00', org_id: 'org_1', env_id: 'env_1', video_id: 'vid_1', rendition_height: 360, segment_index: 0, bytes: 1, access: 'public', node_id: 'n0' })}\n`,
  );
  const arrived = new Promise<void>((resolve) => (onInsert = resolve));
  const log = SegmentLog.open({
    dir: spool,
    clickHouse: new ClickHouseHttp(url),
    nodeId: 'n1',
    shipIntervalMs: 60_000,
    logger,
  });
  await arrived; // that ship has listed the spool and is inserting the old batch
  onInsert = () => {};
  const recorded = [0, 1, 2].map((i) => log.record(delivery(i)));
  const closing = log.close(10_000);
  open();
  await closing;
  await Promise.all(recorded);
  insertGate = Promise.resolve();
  assert.deepEqual(
    inserted.map((r) => (r.row_id === 'old-0' ? 'old' : r.segment_index)),
    ['old', 0, 1, 2],
  );
  assert.deepEqual(readdirSync(spool), [], 'nothing left behind after a clean stop');
});

test('ids with tabs, newlines and backslashes reach ClickHouse as they were', async () => {
  inserted = [];
  marks = [];
  const spool = join(dir, 'f');
  const log = SegmentLog.open({
    dir: spool,
    clickHouse: new ClickHouseHttp(url),
    nodeId: 'node\\1',
    shipIntervalMs: 60_000,
    logger,
  });
  const odd = {
    orgId: 'org\t1',
    envId: 'env\n1',
    videoId: 'vid\\1\r',
    renditionHeight: 360,
    segmentIndex: 0,
    bytes: 1,
    access: 'private',
  } as const;
  await log.record(odd);
  await log.close();
  assert.equal(inserted.length, 1);
  const { org_id, env_id, video_id, node_id, access } = inserted[0]!;
  assert.deepEqual(
    { org_id, env_id, video_id, node_id, access },
    { org_id: 'org\t1', env_id: 'env\n1', video_id: 'vid\\1\r', node_id: 'node\\1', access: 'private' },
  );
  assert.equal(marks.length, 1);
  // The organization's day is marked with its id unescaped (a SQL literal may hold a tab).
  assert.match(marks[0]!, /\('org\t1', '\d{4}-\d\d-\d\d'\)\]/);
});

test('the rows of one turn are written together, and each is in the spool file when its promise resolves', async () => {
  const spool = join(dir, 'g');
  const log = SegmentLog.open({
    dir: spool,
    clickHouse: new ClickHouseHttp(url),
    nodeId: 'n1',
    shipIntervalMs: 60_000,
    logger,
  });
  const file = () =>
    join(
      spool,
      readdirSync(spool).find((name) => name.startsWith('open-'))!,
    );
  const lines = () =>
    readFileSync(file(), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => Number(line.split('\t')[6]));
  const first = [0, 1, 2].map((i) => log.record(delivery(i)));
  assert.deepEqual(lines(), [], 'nothing written before the end of the turn');
  // What a kill -9 right after a segment was sent would leave: every row whose promise resolved.
  await first[0];
  assert.deepEqual(lines(), [0, 1, 2]);
  await log.record(delivery(3));
  assert.deepEqual(lines(), [0, 1, 2, 3]);
  assert.equal(log.counts.spooledRows, 4);
  await log.close();
});
