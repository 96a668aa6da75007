// The registry's tables on PGlite (the embedded default); registry.test.ts runs the same cases on
// PostgreSQL.
import { afterAll, beforeAll, describe } from 'vitest';
import { migrateToLatest, type Db } from '@kino/database';
import { openPgliteDatabase } from '@kino/database/testing';
import { registryTableCases } from './registry-table-cases.ts';

describe('registry tables on PGlite', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPgliteDatabase();
    await migrateToLatest(db);
  });
  afterAll(() => db.destroy());
  registryTableCases(() => db);
});
