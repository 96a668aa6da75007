import { it } from 'vitest';
import assert from 'node:assert/strict';
import { analyticsTables } from './backup.ts';
import { SEGMENT_DELIVERIES_TABLE } from './segment-row.ts';
import { clickHouseMigrations } from './migrations.ts';

it('backs up every table the migrations create, each once, the raw rows last', () => {
  const tables = analyticsTables();
  const created = clickHouseMigrations
    .flatMap((migration) => migration.statements)
    .filter((statement) => /CREATE TABLE/i.test(statement));
  assert.equal(tables.length, created.length, `one table per CREATE TABLE: ${tables.join(', ')}`);
  assert.equal(new Set(tables).size, tables.length);
  assert.equal(tables.at(-1), SEGMENT_DELIVERIES_TABLE);
});
