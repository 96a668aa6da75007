// The registry's tables on PGlite (the embedded default); registry.test.ts runs the same cases on
// PostgreSQL.
import { afterAll, beforeAll, describe } from 'vitest';
import { migrateToLatest, openDatabase, type Db } from '@kino/control-plane';
import { registryTableCases } from './registry-table-cases.ts';

describe('registry tables on PGlite', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase('pglite://memory');
    await migrateToLatest(db);
  });
  afterAll(() => db.destroy());
  registryTableCases(() => db);
});
