// The analytics store's tables copied to files and back (`kino admin backup` and `kino admin restore`,
// docs/production.md#backups-and-restore). Each table of Kino's migrations becomes one TabSeparated
// file, streamed through the HTTP interface as it is stored (`SELECT ... FORMAT TabSeparated` out,
// `INSERT ... FORMAT TabSeparated` in): text that ClickHouse 18.16, chDB and today's servers all
// read and write, where Native would not pass through the dev stack's store, and no tool
// (clickhouse-client, clickhouse-backup) that the Kino image lacks.
//
// A restore runs the migrations, inserts each file under the column names it was written with, and
// then marks every day of the raw rows for the rollup refresher. The tables are read one after the
// other while delivery nodes may still ship rows, the raw rows last: every row a rollup counted is
// in the backup, and the marks make the rollups count the rows served while the backup ran too.
// Restoring twice changes no answer: the raw rows and the rollups are ReplacingMergeTrees (a row
// id, a key, is kept once) and a mark more is only work for the refresher.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClickHouseHttp } from './clickhouse.ts';
import { clickHouseMigrations, markEveryServedDay, migrateClickHouse } from './migrations.ts';
import { SEGMENT_DELIVERIES_TABLE } from './segment-row.ts';
import { markEveryViewedDay } from './experience-rollups.ts';

/** One table of a backup: its file holds `rows` lines of `columns`, TabSeparated. */
export interface AnalyticsTableBackup {
  name: string;
  columns: string[];
  rows: number;
}

/** What `backupAnalytics` wrote, recorded in the backup's manifest; `restoreAnalytics` reads it back. */
export interface AnalyticsBackup {
  /** The newest migration applied to the store that was backed up. */
  schemaVersion: number;
  tables: AnalyticsTableBackup[];
}

/** The tables Kino's migrations create, in the order they are backed up: the raw rows last (see above). */
export function analyticsTables(): string[] {
  const tables = clickHouseMigrations
    .flatMap((migration) => migration.statements)
    .map((statement) => /^\s*CREATE TABLE IF NOT EXISTS (\w+)/.exec(statement)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...tables.filter((name) => name !== SEGMENT_DELIVERIES_TABLE), SEGMENT_DELIVERIES_TABLE];
}

const tableFile = (dir: string, table: string) => join(dir, `${table}.tsv`);

/** Counts the lines (rows) that pass through. */
function lineCounter(): Transform & { lines: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) counter.lines += 1;
      done(null, chunk);
    },
  }) as Transform & { lines: number };
  counter.lines = 0;
  return counter;
}

/** Writes every table of Kino's migrations to `dir` (one `<table>.tsv` each). */
export async function backupAnalytics(client: ClickHouseHttp, dir: string): Promise<AnalyticsBackup> {
  await mkdir(dir, { recursive: true });
  const versions = await client.query<{ version: number }>('SELECT version FROM schema_migrations FINAL');
  const schemaVersion = Math.max(0, ...versions.map((row) => Number(row.version)));
  const tables: AnalyticsTableBackup[] = [];
  for (const name of analyticsTables()) {
    const columns = (await client.query<{ name: string }>(`DESCRIBE TABLE ${name}`)).map((column) => column.name);
    const counter = lineCounter();
    await pipeline(
      await client.selectEncoded(`SELECT ${columns.join(', ')} FROM ${name} FORMAT TabSeparated`),
      counter,
      createWriteStream(tableFile(dir, name)),
    );
    tables.push({ name, columns, rows: counter.lines });
  }
  return { schemaVersion, tables };
}

/**
 * Loads a backup's tables from `dir` into the store: the schema first (the migrations), then each
 * table's rows, then a mark on every served and every viewed day so the rollups cover every row.
 */
export async function restoreAnalytics(client: ClickHouseHttp, dir: string, backup: AnalyticsBackup): Promise<void> {
  const newest = Math.max(...clickHouseMigrations.map((migration) => migration.version));
  if (backup.schemaVersion > newest)
    throw new Error(
      `the analytics backup has schema version ${backup.schemaVersion}, newer than this release's ${newest}: restore with the release that made it`,
    );
  await migrateClickHouse(client);
  for (const table of backup.tables) {
    if (table.rows === 0) continue;
    await client.insertEncoded(table.name, table.columns, 'TabSeparated', createReadStream(tableFile(dir, table.name)));
  }
  await client.exec(markEveryServedDay);
  await client.exec(markEveryViewedDay);
}
