// The node_leases table: encode slots taken on live nodes, one row per slot, and given back.
import { sql } from 'kysely';
import { randomBase62 } from '@kino/infra';
import type { Db } from '../database.ts';
import type { EncodeNode } from '../schema.ts';
import { ago } from './db-clock.ts';
import { listLiveNodes, type SelectionOptions } from './encode-nodes.ts';
import { notifyFarmChanged, oneTransactionAtATime } from './farm-changes.ts';

export interface NodeSlotLease {
  leaseId: string;
  node: EncodeNode;
}

export interface AcquireOptions extends SelectionOptions {
  videoId: string;
  /**
   * The job the slot is for: pass the same string as the node call's `jobId`. A node reports its
   * running job ids in heartbeats, and the registry frees leases whose job the node does not run.
   */
  job: string;
}

/**
 * Takes one slot on the least loaded live node, or returns undefined when no live node has a free
 * one. Atomic: the candidates' rows are locked (`select ... for update`) and their leases counted
 * under the locks, so two orchestrators can never overbook a node.
 */
export async function acquireNodeSlot(db: Db, options: AcquireOptions): Promise<NodeSlotLease | undefined> {
  return oneTransactionAtATime(db, () => acquireInTransaction(db, options));
}

async function acquireInTransaction(db: Db, options: AcquireOptions): Promise<NodeSlotLease | undefined> {
  return db.transaction().execute(async (trx) => {
    // Least loaded first, as the snapshot saw them.
    const candidates = (await listLiveNodes(trx, options)).filter((candidate) => candidate.used < candidate.slots);
    if (candidates.length === 0) return undefined;
    // Every acquirer locks its candidates at once and in one order (by id). Locking them one by one
    // in load order deadlocked: two acquirers whose snapshots ordered two full nodes differently
    // each held one and waited for the other.
    const locked = await trx
      .selectFrom('encode_nodes')
      .selectAll()
      .where(
        'id',
        'in',
        candidates.map((candidate) => candidate.id),
      )
      .where('state', '=', 'active')
      .where('last_heartbeat_at', '>', ago(options.heartbeatTimeoutMs))
      .orderBy('id')
      .forUpdate()
      .execute();
    const lockedById = new Map(locked.map((node) => [node.id, node]));
    for (const candidate of candidates) {
      const node = lockedById.get(candidate.id);
      if (!node) continue;
      const { used } = await trx
        .selectFrom('node_leases')
        .select(sql<number>`count(*)::int`.as('used'))
        .where('node_id', '=', node.id)
        .executeTakeFirstOrThrow();
      if (Number(used) >= node.slots) continue;
      const leaseId = `lease_${randomBase62(16)}`;
      await trx
        .insertInto('node_leases')
        .values({ id: leaseId, node_id: node.id, video_id: options.videoId, job: options.job })
        .execute();
      return { leaseId, node };
    }
    return undefined;
  });
}

/** Gives a slot back. Releasing a lease that is already gone (expired node, reaped orphan) is fine. */
export async function releaseNodeSlot(db: Db, leaseId: string): Promise<void> {
  const released = await db.deleteFrom('node_leases').where('id', '=', leaseId).executeTakeFirst();
  // The queue's dispatchers hand the slot on at once.
  if (released.numDeletedRows > 0n) await notifyFarmChanged(db);
}

/**
 * Drops the leases still held under `job`: they belong to earlier attempts of the activity whose
 * worker died (Temporal starts an attempt only once the previous one is over).
 */
export async function releaseJobLeases(db: Db, job: string): Promise<void> {
  const released = await db.deleteFrom('node_leases').where('job', '=', job).executeTakeFirst();
  if (released.numDeletedRows > 0n) await notifyFarmChanged(db);
}

/** A lease still held, as the dispatcher checks it (leasesStillHeld). */
export interface HeldLease {
  /** Someone waits for its run (raised_at): at grant, or a viewer's request while it runs. */
  raised: boolean;
}

/**
 * Which of these leases still exist (the others were dropped: their node expired, was lost or
 * left), and whether each is raised.
 */
export async function leasesStillHeld(db: Db, leaseIds: string[]): Promise<Map<string, HeldLease>> {
  if (leaseIds.length === 0) return new Map();
  const rows = await db.selectFrom('node_leases').select(['id', 'raised_at']).where('id', 'in', leaseIds).execute();
  return new Map(rows.map((row) => [row.id, { raised: row.raised_at !== null }]));
}
