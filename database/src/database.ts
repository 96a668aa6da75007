// Opens the metadata database: PostgreSQL from a `postgres://` URL. Tests may hand in another Kysely
// dialect instead (PGlite, in-process: @kino/database/testing); the same migrations run on both.
import {
  Kysely,
  Migrator,
  PostgresDialect,
  sql,
  type Dialect,
  type MigrationProvider,
  type PostgresPool,
  type PostgresPoolClient,
} from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { buildConcurrentIndexes, migrations } from './migrations/index.ts';

// bigint (int8) columns come back as strings by default; counts we keep fit in a double.
pg.types.setTypeParser(20, (value) => Number(value));

export type Db = Kysely<Database>;

/**
 * The database could not be reached or the connection was lost mid-query (a restart, a failover, a
 * network cut): nothing is known to have changed, and the same call may succeed shortly. The API
 * answers it 503; activities are retried by Temporal.
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    // The log's error serializer appends the cause's message.
    super('the database is unavailable', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

// SQLSTATEs that say the server is going away or not there yet, not that the statement is wrong:
// class 08 (connection exception), admin_shutdown (a fast restart), crash_shutdown, cannot_connect_now
// (starting up or shutting down).
const unavailableStates = new Set(['57P01', '57P02', '57P03']);

function isConnectionFailure(error: unknown): boolean {
  if (error instanceof pg.DatabaseError)
    return error.code?.startsWith('08') === true || unavailableStates.has(error.code ?? '');
  // The server answers every statement it refuses with a DatabaseError. Anything else a query
  // rejects with comes from the connection under it (a reset socket, "Connection terminated
  // unexpectedly"), except the driver's own refusal of a value it cannot send (TypeError).
  return !(error instanceof TypeError);
}

/**
 * A pg pool whose failures to reach the server come out as DatabaseUnavailableError, whatever the
 * driver's words, and whose lost connections, idle or in use, go to `onConnectionError` instead of
 * an `error` event nobody listens to (which ends the process).
 */
function typedFailures(pool: pg.Pool, onConnectionError: (error: Error) => void): PostgresPool {
  // pg-pool reports an idle connection's end on the pool; a connection in use has no listener there.
  pool.on('error', onConnectionError);
  const inUse = new Set<pg.PoolClient>();
  // One wrapper per pooled connection: Kysely keeps its connection state keyed by this object.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    inUse.add(client);
    let wrapper = wrappers.get(client);
    if (!wrapper) {
      // The query in flight fails with the same error; release() then drops the dead connection.
      client.on('error', (error) => inUse.has(client) && onConnectionError(error));
      wrapper = wrapClient(client);
      wrappers.set(client, wrapper);
    }
    return wrapper;
  };
  const wrapClient = (client: pg.PoolClient): PostgresPoolClient => ({
    query: ((text: string | object, parameters?: ReadonlyArray<unknown>) => {
      // Cursors (streamed results) are passed through as they are.
      if (typeof text !== 'string') return client.query(text as never);
      return client.query(text, parameters as unknown[]).catch((error: unknown) => {
        throw isConnectionFailure(error) ? new DatabaseUnavailableError(error) : error;
      });
    }) as unknown as PostgresPoolClient['query'],
    release: () => {
      inUse.delete(client);
      client.release();
    },
  });
  return {
    connect: () =>
      pool.connect().then(wrap, (error: unknown) => {
        throw new DatabaseUnavailableError(error);
      }),
    end: () => pool.end(),
  };
}

export interface DatabaseOptions {
  /**
   * Called when a pooled connection ends under the pool (the server restarted or went away). The
   * pool drops it and opens a new one for the next query. Processes log and count it.
   */
  onConnectionError?: (error: Error) => void;
}

/**
 * A `postgres://` URL, or a Kysely dialect already made (tests: an in-process PGlite). Production
 * processes always pass the URL.
 */
export type DatabaseTarget = string | { dialect: Dialect };

export async function openDatabase(
  target: DatabaseTarget,
  { onConnectionError = () => undefined }: DatabaseOptions = {},
): Promise<Db> {
  if (typeof target !== 'string') return new Kysely<Database>({ dialect: target.dialect });
  const pool = new pg.Pool({ connectionString: target, max: 10 });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: typedFailures(pool, onConnectionError) }) });
}

/** Cheap reachability check for /health: one round trip, no table. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };

/**
 * Brings the schema up to date, then builds the large tables' indexes without blocking writes; run
 * at every process start. Returns the names of the migrations this call applied (none: it was current).
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error | undefined)?.message ?? ''}`);
  }
  await buildConcurrentIndexes(db as Kysely<unknown>);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
