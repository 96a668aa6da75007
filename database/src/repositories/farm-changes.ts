// The signal the encode farm's tables send when capacity or leases change (a lease given back or
// dropped, a node registering, leaving or lost, a slot granted): a PostgreSQL notification on one
// channel, which wakes the encode queue's dispatcher in every orchestrator at once
// (docs/architecture.md#encode-scheduling). Not a table: the channel its tables share.
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../database.ts';

export const farmChangedChannel = 'kino_encode_farm';

/** Tells every listening orchestrator that slots, nodes or leases changed (delivered when the transaction commits). */
export async function notifyFarmChanged(db: Db): Promise<void> {
  await sql`select pg_notify(${farmChangedChannel}, '')`.execute(db);
}

export interface FarmListener {
  close(): Promise<void>;
}

/**
 * LISTENs on the channel over its own connection (PostgreSQL only) and calls `onChange` for every
 * notification, and once after each (re)connection for what changed meanwhile. Reconnects after a
 * lost connection; callers poll as well, so a gap costs latency, never a lost wake-up.
 */
export async function listenForFarmChanges(
  databaseUrl: string,
  { onChange, onError }: { onChange: () => void; onError: (error: unknown) => void },
): Promise<FarmListener> {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', () => onChange());
    next.on('error', (error) => {
      onError(error);
      next.end().catch(() => undefined);
      if (client === next) client = undefined;
      if (!closed) retry = setTimeout(() => void connect().catch(onError), 1_000).unref();
    });
    await next.connect();
    await next.query(`listen ${farmChangedChannel}`);
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    onChange();
  };
  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}

// PGlite is a single session and kysely-pglite does not keep two transactions apart: their
// statements interleave, and row locks mean nothing within one session. Slot-taking transactions
// of one process therefore queue here; across processes (PostgreSQL) row and advisory locks do the work.
const transactionQueues = new WeakMap<Db, Promise<unknown>>();

export function oneTransactionAtATime<T>(db: Db, task: () => Promise<T>): Promise<T> {
  const previous = transactionQueues.get(db) ?? Promise.resolve();
  const run = previous.then(task, task);
  transactionQueues.set(
    db,
    run.catch(() => undefined),
  );
  return run;
}
