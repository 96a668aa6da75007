// An in-process PostgreSQL (PGlite) for tests: no server to start, one process only. Test code only:
// production opens PostgreSQL from a URL (openDatabase in ../database.ts), and PGlite is a
// devDependency of this package, so no runtime code imports this file (eslint.config.js enforces it).
import { PGlite } from '@electric-sql/pglite';
// pg_trgm backs the name search index (the PostgreSQL server ships it in contrib).
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { KyselyPGlite } from 'kysely-pglite';
import { openDatabase, type Db } from '../database.ts';

/** A fresh, empty database in memory; run migrateToLatest on it as on any other. */
export function openPgliteDatabase(): Promise<Db> {
  const client = new PGlite({ extensions: { pg_trgm } });
  return openDatabase({ dialect: new KyselyPGlite(client).dialect });
}
