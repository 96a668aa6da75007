// The encode_nodes table: what the NodeRegistry writes when nodes register, heartbeat and leave,
// and which nodes are live. A node that goes (deregistered, expired, lost) frees its
// slots in node_leases in the same transaction. Every clock comparison is the database's `now()`.
import { sql } from 'kysely';
import { newId } from '@kino/infra';
import type { Db } from '../database.ts';
import type { EncodeNode } from '../schema.ts';
import { ago } from './db-clock.ts';
import { notifyFarmChanged } from './farm-changes.ts';

const nodeIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

export interface NodeRegistration {
  /** The id the node had before (a restart or a re-registration keeps it); empty for a new node. */
  nodeId?: string;
  /** HOST:PORT of the relay of the orchestrator holding the node's connection (its calls go there). */
  address: string;
  slots: number;
  version: string;
  labels: Record<string, string>;
  /** The encoders its ffmpeg has that work; absent (a node that predates them): none reported. */
  encoders?: string[];
  /** Its quality ffmpeg works. */
  qualityFfmpeg?: boolean;
  /** The languages its speech engine transcribes; absent or empty: none. */
  transcribeLanguages?: string[];
}

/** A node as registering left it. */
export interface RegisteredNode extends EncodeNode {
  /**
   * The node registered with an id the registry had marked gone (it hung past the heartbeat
   * timeout, or left): whatever it still runs has moved to other nodes, and must neither answer
   * nor upload (docs/security.md#nodes-that-hang).
   */
  wasGone: boolean;
}

/**
 * Adds or refreshes a node, `active` with a fresh heartbeat. `address` is the relay of the
 * orchestrator holding its connection, shared by every node connected there: a previous life of a
 * node restarted without its id is not found by it, but was marked lost when its connection ended.
 */
export async function registerNode(db: Db, registration: NodeRegistration): Promise<RegisteredNode> {
  const id = registration.nodeId && nodeIdPattern.test(registration.nodeId) ? registration.nodeId : newId('node');
  return db.transaction().execute(async (trx) => {
    // Locked until the row is written: a node marked gone meanwhile is not revived unseen.
    const before = await trx
      .selectFrom('encode_nodes')
      .select('state')
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    const values = {
      address: registration.address,
      slots: registration.slots,
      version: registration.version,
      labels: JSON.stringify(registration.labels),
      encoders: sql<string[]>`${sql.val(registration.encoders ?? [])}::text[]`,
      quality_ffmpeg: registration.qualityFfmpeg ?? false,
      transcribe_languages: sql<string[]>`${sql.val(registration.transcribeLanguages ?? [])}::text[]`,
      state: 'active' as const,
      last_heartbeat_at: sql<Date>`now()`,
    };
    // A quarantined node registering again stays out of work (docs/security.md#nodes-that-hang).
    const node = await trx
      .insertInto('encode_nodes')
      .values({ id, ...values })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          ...values,
          state: sql<
            'active' | 'draining'
          >`case when encode_nodes.quarantined_at is null then 'active' else 'draining' end`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    // New slots: the encode queue hands them out at once.
    await notifyFarmChanged(trx);
    return { ...node, wasGone: before?.state === 'gone' };
  });
}

export interface NodeHeartbeat {
  nodeId: string;
  draining: boolean;
  /** Job ids the node is running (probes, encodes, thumbnails). */
  activeJobs: string[];
  /**
   * Leases older than this whose job the node does not report are dropped: their holder (an
   * orchestrator attempt) died between taking the slot and giving it back.
   */
  leaseGraceMs: number;
}

/** Records a heartbeat. False when the registry does not know the node (never seen, or marked gone). */
export async function recordHeartbeat(
  db: Db,
  { nodeId, draining, activeJobs, leaseGraceMs }: NodeHeartbeat,
): Promise<boolean> {
  const before = await db
    .selectFrom('encode_nodes')
    .select(['state', 'quarantined_at'])
    .where('id', '=', nodeId)
    .executeTakeFirst();
  if (before?.state === 'gone') {
    // Back from silence (a hang, not a death) with work it was given before: that work has moved
    // on, so the node is quarantined until it runs nothing (docs/security.md#nodes-that-hang).
    if (activeJobs.length > 0) {
      await db
        .updateTable('encode_nodes')
        .set({ quarantined_at: sql<Date>`coalesce(quarantined_at, now())` })
        .where('id', '=', nodeId)
        .where('state', '=', 'gone')
        .execute();
    }
    return false;
  }
  const quarantined = before?.quarantined_at != null && activeJobs.length > 0;
  const state = draining || quarantined ? 'draining' : 'active';
  const updated = await db
    .updateTable('encode_nodes')
    .set({ last_heartbeat_at: sql<Date>`now()`, state, ...(quarantined ? {} : { quarantined_at: null }) })
    .where('id', '=', nodeId)
    .where('state', '!=', 'gone')
    .returning('id')
    .executeTakeFirst();
  if (!updated) return false;
  let orphans = db.deleteFrom('node_leases').where('node_id', '=', nodeId).where('acquired_at', '<', ago(leaseGraceMs));
  if (activeJobs.length > 0) orphans = orphans.where('job', 'not in', activeJobs);
  const reaped = await orphans.executeTakeFirst();
  // Slots freed (orphans reaped, or the node back from draining): wake the encode queue.
  if (reaped.numDeletedRows > 0n || before?.state !== state) await notifyFarmChanged(db);
  return true;
}

/** A node leaving on purpose: gone at once, its slots free. */
export async function deregisterNode(db: Db, nodeId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('encode_nodes').set({ state: 'gone' }).where('id', '=', nodeId).execute();
    await trx.deleteFrom('node_leases').where('node_id', '=', nodeId).execute();
    await notifyFarmChanged(trx);
  });
}

/** Marks nodes whose last heartbeat is older than `timeoutMs` as gone and frees their slots; returns their ids. */
export async function expireDeadNodes(db: Db, timeoutMs: number): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const expired = await trx
      .updateTable('encode_nodes')
      .set({ state: 'gone' })
      .where('state', '!=', 'gone')
      .where('last_heartbeat_at', '<', ago(timeoutMs))
      .returning('id')
      .execute();
    const ids = expired.map((row) => row.id);
    if (ids.length > 0) {
      await trx.deleteFrom('node_leases').where('node_id', 'in', ids).execute();
      // Encodes still running on them learn that their node was dropped (their leases are gone).
      await notifyFarmChanged(trx);
    }
    return ids;
  });
}

/**
 * A node that vanished mid-call (its stream broke): gone at once, its slots freed, so queued work
 * moves to the other nodes now rather than at the heartbeat timeout. A live node re-registers on
 * its next heartbeat.
 */
export async function markNodeLost(db: Db, nodeId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable('encode_nodes')
      .set({ state: 'gone' })
      .where('id', '=', nodeId)
      .where('state', '!=', 'gone')
      .executeTakeFirst();
    const freed = await trx.deleteFrom('node_leases').where('node_id', '=', nodeId).executeTakeFirst();
    // Encodes on it learn from their leases going, short jobs on it from its row (findGoneNodes).
    if (marked.numUpdatedRows > 0n || freed.numDeletedRows > 0n) await notifyFarmChanged(trx);
  });
}

/**
 * markNodeLost for a node whose connection to the orchestrator with relay `address` ended: only
 * while its row still names that relay (it did not connect again to another orchestrator since).
 * True when it was marked.
 */
export async function markNodeLostAt(db: Db, nodeId: string, address: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable('encode_nodes')
      .set({ state: 'gone' })
      .where('id', '=', nodeId)
      .where('address', '=', address)
      .where('state', '!=', 'gone')
      .returning('id')
      .execute();
    if (marked.length === 0) return false;
    await trx.deleteFrom('node_leases').where('node_id', '=', nodeId).execute();
    await notifyFarmChanged(trx);
    return true;
  });
}

/**
 * Of `nodeIds`, those the registry no longer counts on: gone (its sweep expired them at the heartbeat
 * timeout, they were marked lost, or they left) or unknown. The registry's sweep is the one rule of
 * when a silent node is dead, for a short job's node as for an encode's lease (leasesStillHeld). A
 * draining node is not among them: it finishes what it runs.
 */
export async function findGoneNodes(db: Db, nodeIds: string[]): Promise<Set<string>> {
  if (nodeIds.length === 0) return new Set();
  const counted = await db
    .selectFrom('encode_nodes')
    .select('id')
    .where('id', 'in', nodeIds)
    .where('state', '!=', 'gone')
    .execute();
  const live = new Set(counted.map((row) => row.id));
  return new Set(nodeIds.filter((id) => !live.has(id)));
}

export interface LiveNode extends EncodeNode {
  /** Slots taken by leases. */
  used: number;
}

export interface SelectionOptions {
  /** A node is live while `active` and heard from within this many milliseconds. */
  heartbeatTimeoutMs: number;
  /** Nodes not to pick (e.g. the one an earlier attempt of this job failed on). */
  excludeNodeIds?: string[];
}

/** Every node's row with `used`, the slots its leases hold. */
function nodesWithUsedSlots(db: Db) {
  return db
    .selectFrom('encode_nodes as n')
    .selectAll('n')
    .select((eb) =>
      eb
        .selectFrom('node_leases as l')
        .select(sql<number>`count(*)::int`.as('used'))
        .whereRef('l.node_id', '=', 'n.id')
        .as('used'),
    );
}

/** A node's load, as the choice of a node sees it. */
export interface NodeLoad {
  id: string;
  slots: number;
  /** Slots taken by leases. */
  used: number;
}

/**
 * The order in which nodes are chosen, one order wherever they are (listLiveNodes, findLiveNode,
 * dispatchEncodeQueue): the smallest share of slots taken first, then the most free slots, then
 * ids by code unit (not by locale, so it never depends on a collation).
 */
export function compareNodeLoad(a: NodeLoad, b: NodeLoad): number {
  return (
    a.used / a.slots - b.used / b.slots ||
    b.slots - b.used - (a.slots - a.used) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** Live nodes with their used slots, least loaded first; a node an operator drained is not live. */
export async function listLiveNodes(
  db: Db,
  { heartbeatTimeoutMs, excludeNodeIds = [] }: SelectionOptions,
): Promise<LiveNode[]> {
  let query = nodesWithUsedSlots(db)
    .where('n.state', '=', 'active')
    .where('n.drain_requested_at', 'is', null)
    .where('n.last_heartbeat_at', '>', ago(heartbeatTimeoutMs));
  if (excludeNodeIds.length > 0) query = query.where('n.id', 'not in', excludeNodeIds);
  const rows = await query.execute();
  return rows.map((row) => ({ ...row, used: Number(row.used ?? 0) })).sort(compareNodeLoad);
}

/**
 * A live node for a short job that takes no slot (probe, thumbnail, storyboard): the least loaded,
 * and among equally loaded nodes the last by id, because encodes are granted from the first
 * (dispatchEncodeQueue). In an idle farm a video's storyboard, which decodes the whole source, then
 * runs beside its first encode rather than on the same node's cores (bench/encode/chunks.ts: the
 * audio track, encoded before any chunk, took 6.5 s beside the storyboard and 2.8 s alone).
 * Undefined when no node is live.
 */
export async function findLiveNode(db: Db, options: SelectionOptions): Promise<LiveNode | undefined> {
  const nodes = await listLiveNodes(db, options);
  const leastLoaded = nodes.filter((node) => node.used / node.slots === nodes[0]!.used / nodes[0]!.slots);
  return leastLoaded.at(-1);
}

/** Every node the registry has seen, newest first (for operators and health checks). */
export async function listEncodeNodes(db: Db): Promise<EncodeNode[]> {
  return db.selectFrom('encode_nodes').selectAll().orderBy('registered_at', 'desc').execute();
}

/** Every node the registry has seen with its slots in use, newest first (the operators' list). */
export async function listEncodeNodesWithLoad(db: Db): Promise<LiveNode[]> {
  const rows = await nodesWithUsedSlots(db).orderBy('n.registered_at', 'desc').execute();
  return rows.map((row) => ({ ...row, used: Number(row.used ?? 0) }));
}

/**
 * An operator's drain (`draining: true`) or undrain of a node. A drained node takes no new work
 * (listLiveNodes skips it) and keeps its leases, so what it runs finishes. Undraining wakes the
 * encode queue, which hands the node work at once. Returns the node, or undefined if unknown.
 */
export async function setNodeDrainRequested(
  db: Db,
  nodeId: string,
  draining: boolean,
): Promise<EncodeNode | undefined> {
  return db.transaction().execute(async (trx) => {
    const node = await trx
      .updateTable('encode_nodes')
      .set({ drain_requested_at: draining ? sql<Date>`coalesce(drain_requested_at, now())` : null })
      .where('id', '=', nodeId)
      .returningAll()
      .executeTakeFirst();
    if (node && !draining) await notifyFarmChanged(trx);
    return node;
  });
}

/**
 * How many active nodes at these addresses (the relays of the orchestrators holding their
 * connections) registered or heartbeat at or after `since` (the dev stack waits for its own nodes this way).
 */
export async function countActiveNodesSince(db: Db, addresses: string[], since: Date): Promise<number> {
  if (addresses.length === 0) return 0;
  const row = await db
    .selectFrom('encode_nodes')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('state', '=', 'active')
    .where('address', 'in', addresses)
    .where('last_heartbeat_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface NodeForMetrics extends LiveNode {
  /** Whether it takes work now (listLiveNodes' rule: active, not drained, heard from in time). */
  live: boolean;
  /** Seconds since its last heartbeat, by the database's clock. */
  heartbeatAgeSeconds: number;
}

/** Every node not gone, with its used slots, liveness and heartbeat age (the orchestrator's metrics). */
export async function listNodesForMetrics(
  db: Db,
  { heartbeatTimeoutMs }: Pick<SelectionOptions, 'heartbeatTimeoutMs'>,
): Promise<NodeForMetrics[]> {
  const rows = await nodesWithUsedSlots(db)
    .select([
      sql<number>`extract(epoch from now() - n.last_heartbeat_at)::float8`.as('heartbeat_age_seconds'),
      sql<boolean>`n.state = 'active' and n.drain_requested_at is null and n.last_heartbeat_at > ${ago(heartbeatTimeoutMs)}`.as(
        'is_live',
      ),
    ])
    .where('n.state', '!=', 'gone')
    .execute();
  return rows.map(({ heartbeat_age_seconds, is_live, ...row }) => ({
    ...row,
    used: Number(row.used ?? 0),
    live: Boolean(is_live),
    heartbeatAgeSeconds: Math.max(0, Number(heartbeat_age_seconds)),
  }));
}

/**
 * Every language some registered node's speech engine transcribes (nodes gone excepted): what a
 * request for generated captions may ask for. A node away for a moment still counts: its jobs wait for it.
 */
export async function listTranscribeLanguages(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('encode_nodes')
    .select(sql<string>`unnest(transcribe_languages)`.as('language'))
    .where('state', '<>', 'gone')
    .distinct()
    .execute();
  return rows.map((row) => row.language).sort();
}
