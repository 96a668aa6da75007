// The encode_queue table: encodes waiting for a slot. Capacity is a queue, not a retry: an encode
// with no free slot enqueues itself and waits; a dispatch (run by any orchestrator, one at a time)
// grants free slots to waiting encodes in a fair order and writes their leases; the waiter takes its
// lease and removes its row. Whatever frees or adds capacity (a lease given back, a node
// registering, a node dropped) notifies `farmChangedChannel`, which wakes the dispatchers of every
// orchestrator at once. See docs/architecture.md#encode-scheduling.
import { sql } from 'kysely';
import { randomBase62 } from '@kino/infra';
import type { Db } from '../database.ts';
import { ago } from './db-clock.ts';
import { notifyFarmChanged, oneTransactionAtATime } from './farm-changes.ts';
import { compareNodeLoad } from './encode-nodes.ts';

/** Serializes dispatch passes across orchestrators (pg_advisory_xact_lock key). */
const dispatchLockKey = 7_301_401;

/**
 * Puts an encode in the queue and returns its entry id. Rows and leases of an earlier attempt of
 * the same job (a worker that died) are dropped first. The video ranks by when it came.
 */
export async function enqueueEncode(db: Db, { videoId, job }: { videoId: string; job: string }): Promise<string> {
  const id = `wait_${randomBase62(16)}`;
  await db.transaction().execute(async (trx) => {
    const previous = await trx.deleteFrom('encode_queue').where('job', '=', job).returning('lease_id').execute();
    const leases = previous.map((row) => row.lease_id).filter((lease): lease is string => lease !== null);
    if (leases.length > 0) await trx.deleteFrom('node_leases').where('id', 'in', leases).execute();
    await trx
      .insertInto('encode_queue')
      .values({
        id,
        video_id: videoId,
        job,
        video_since: sql<Date>`coalesce((select created_at from videos where id = ${videoId}), now())`,
      })
      .execute();
  });
  return id;
}

/** The waiters of these entries are alive (rows not touched for a while are dropped by dispatch). */
export async function touchQueueEntries(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('encode_queue').set({ touched_at: sql<Date>`now()` }).where('id', 'in', ids).execute();
}

/** Leaves the queue (gave up or cancelled): the row goes, and a lease granted meanwhile is given back. */
export async function leaveEncodeQueue(db: Db, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx.deleteFrom('encode_queue').where('id', '=', id).returning('lease_id').executeTakeFirst();
    if (row?.lease_id) {
      await trx.deleteFrom('node_leases').where('id', '=', row.lease_id).execute();
      await notifyFarmChanged(trx);
    }
  });
}

export interface GrantedLease {
  entryId: string;
  leaseId: string;
  nodeId: string;
  address: string;
}

/**
 * Takes the leases granted to these entries (their rows go); entries not granted yet stay queued.
 * An entry whose lease was dropped between the grant and now (its node was lost) is queued again.
 */
export async function takeGrantedLeases(db: Db, ids: string[]): Promise<GrantedLease[]> {
  if (ids.length === 0) return [];
  return db.transaction().execute(async (trx) => {
    const granted = await trx
      .selectFrom('encode_queue as q')
      .leftJoin('node_leases as l', 'l.id', 'q.lease_id')
      .leftJoin('encode_nodes as n', 'n.id', 'l.node_id')
      .select(['q.id as entryId', 'q.lease_id as grantedLeaseId', 'l.id as leaseId', 'n.id as nodeId', 'n.address'])
      .where('q.id', 'in', ids)
      .where('q.lease_id', 'is not', null)
      .forUpdate('q')
      .execute();
    const taken = granted.filter((g) => g.leaseId !== null && g.nodeId !== null && g.address !== null);
    const dropped = granted.filter((g) => !taken.includes(g));
    if (taken.length > 0) await trx.deleteFrom('encode_queue').where('id', 'in', taken.map((g) => g.entryId)).execute();
    if (dropped.length > 0) {
      await trx.updateTable('encode_queue').set({ lease_id: null }).where('id', 'in', dropped.map((g) => g.entryId)).execute();
    }
    return taken.map((g) => ({ entryId: g.entryId, leaseId: g.leaseId!, nodeId: g.nodeId!, address: g.address! }));
  });
}

export interface DispatchOptions {
  /** A node is live while `active` and heard from within this many milliseconds. */
  heartbeatTimeoutMs: number;
  /** Rows not touched for this long belong to dead waiters: dropped, with any lease granted to them. */
  staleMs: number;
}

/**
 * Grants free slots to waiting encodes; returns how many it granted. One dispatch at a time across
 * every orchestrator (an advisory lock), so no slot is granted twice. Fair order: first the videos
 * holding the fewest slots (a long video's many encodes cannot starve a short video queued after
 * it), then the video that came first, then the encode queued first; each slot goes to the least
 * loaded live node.
 */
export async function dispatchEncodeQueue(db: Db, { heartbeatTimeoutMs, staleMs }: DispatchOptions): Promise<number> {
  return oneTransactionAtATime(db, () =>
    db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${dispatchLockKey})`.execute(trx);
      const stale = await trx.deleteFrom('encode_queue').where('touched_at', '<', ago(staleMs)).returning('lease_id').execute();
      const staleLeases = stale.map((row) => row.lease_id).filter((lease): lease is string => lease !== null);
      if (staleLeases.length > 0) await trx.deleteFrom('node_leases').where('id', 'in', staleLeases).execute();

      const waiting = await trx
        .selectFrom('encode_queue')
        .select(['id', 'video_id', 'job'])
        .where('lease_id', 'is', null)
        .orderBy('video_since')
        .orderBy('seq')
        .execute();
      if (waiting.length === 0) return 0;
      // Locked as acquireNodeSlot locks them, so a grant never overbooks a node.
      const nodes = await trx
        .selectFrom('encode_nodes')
        .select(['id', 'slots'])
        .where('state', '=', 'active')
        .where('drain_requested_at', 'is', null)
        .where('last_heartbeat_at', '>', ago(heartbeatTimeoutMs))
        .orderBy('id')
        .forUpdate()
        .execute();
      if (nodes.length === 0) return 0;
      const leases = await trx.selectFrom('node_leases').select(['node_id', 'video_id']).execute();
      const used = new Map<string, number>();
      const running = new Map<string, number>();
      for (const lease of leases) {
        used.set(lease.node_id, (used.get(lease.node_id) ?? 0) + 1);
        running.set(lease.video_id, (running.get(lease.video_id) ?? 0) + 1);
      }

      let granted = 0;
      const queue = [...waiting];
      for (;;) {
        const node = nodes
          .map((n) => ({ id: n.id, slots: n.slots, used: used.get(n.id) ?? 0 }))
          .filter((n) => n.used < n.slots)
          .sort(compareNodeLoad)[0];
        if (!node || queue.length === 0) break;
        // The first (in queue order) among the entries whose video holds the fewest slots.
        let best = 0;
        for (let k = 1; k < queue.length; k += 1) {
          if ((running.get(queue[k]!.video_id) ?? 0) < (running.get(queue[best]!.video_id) ?? 0)) best = k;
        }
        const [entry] = queue.splice(best, 1);
        const leaseId = `lease_${randomBase62(16)}`;
        await trx.insertInto('node_leases').values({ id: leaseId, node_id: node.id, video_id: entry!.video_id, job: entry!.job }).execute();
        await trx.updateTable('encode_queue').set({ lease_id: leaseId }).where('id', '=', entry!.id).execute();
        used.set(node.id, (used.get(node.id) ?? 0) + 1);
        running.set(entry!.video_id, (running.get(entry!.video_id) ?? 0) + 1);
        granted += 1;
      }
      if (granted > 0) await notifyFarmChanged(trx);
      return granted;
    }),
  );
}
