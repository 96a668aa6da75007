// Opens the metadata database: PostgreSQL for a `postgres://` URL, PGlite (in-process, one process
// only) for `pglite://<dir>` or `pglite://memory`. The same migrations run on both.
import { Kysely, Migrator, PostgresDialect, sql, type MigrationProvider } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { buildConcurrentIndexes, migrations } from './migrations/index.ts';

// bigint (int8) columns come back as strings by default; counts we keep fit in a double.
pg.types.setTypeParser(20, (value) => Number(value));

export type Db = Kysely<Database>;

export async function openDatabase(url: string): Promise<Db> {
  if (url.startsWith('pglite://')) {
    const { PGlite } = await import('@electric-sql/pglite');
    const { KyselyPGlite } = await import('kysely-pglite');
    const location = url.slice('pglite://'.length);
    // pg_trgm backs the name search index (the PostgreSQL server ships it in contrib).
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    const options = { extensions: { pg_trgm } };
    const client = location === 'memory' ? new PGlite(options) : new PGlite(location, options);
    const { dialect } = new KyselyPGlite(client);
    return new Kysely<Database>({ dialect });
  }
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 10 }) }),
  });
}

/** Cheap reachability check for /health: one round trip, no table. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };

/** Brings the schema up to date, then builds the large tables' indexes without blocking writes; run at every process start. */
export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error | undefined)?.message ?? ''}`);
  }
  await buildConcurrentIndexes(db as Kysely<unknown>);
}
