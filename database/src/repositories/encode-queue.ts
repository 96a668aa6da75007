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
import { canRun, whyNoNodeCanRun, type JobNeeds, type NodeCapabilities } from '@kino/proto/contract';

/** Serializes dispatch passes across orchestrators (pg_advisory_xact_lock key). */
const dispatchLockKey = 7_301_401;

/** The segments a just-in-time run makes (docs/decisions/just-in-time.md): a request for one raises its entry. */
export interface QueuedSegments {
  renditions: string[];
  firstSegment: number;
  segmentCount: number;
}

export interface EnqueueRequest {
  videoId: string;
  job: string;
  /** 1: someone waits for it now (a viewer, or a video's first segments); 0 (the default): background. */
  priority?: number;
  /** Its place in the video's playback order; 0 otherwise. */
  rank?: number;
  /**
   * Background work that goes first (`raised_at` at priority 0), as a request's read-ahead makes
   * the next run: a just-in-time video's second bootstrap run, queued beside its first.
   */
  ahead?: boolean;
  segments?: QueuedSegments;
  /** What the encode needs of its node (codecs, quality scores, labels); absent: any node runs it. */
  needs?: JobNeeds;
}

/**
 * Puts an encode in the queue and returns its entry id. Rows and leases of an earlier attempt of
 * the same job (a worker that died) are dropped first. The video ranks by when it came.
 */
export async function enqueueEncode(
  db: Db,
  { videoId, job, priority = 0, rank = 0, ahead = false, segments, needs }: EnqueueRequest,
): Promise<string> {
  const id = `wait_${randomBase62(16)}`;
  await db.transaction().execute(async (trx) => {
    const previous = await trx
      .deleteFrom('encode_queue')
      .where('job', '=', job)
      .returning(['lease_id', 'priority'])
      .execute();
    const leases = previous.map((row) => row.lease_id).filter((lease): lease is string => lease !== null);
    if (leases.length > 0) await trx.deleteFrom('node_leases').where('id', 'in', leases).execute();
    // A retried attempt keeps a priority a viewer raised while the attempt before was still queued.
    // One that was running has no row left (its lease went with it): while a viewer waits, delivery
    // raises the retry within a second.
    const raised = priority > 0 || previous.some((row) => row.priority > 0);
    await trx
      .insertInto('encode_queue')
      .values({
        id,
        video_id: videoId,
        job,
        video_since: sql<Date>`coalesce((select created_at from videos where id = ${videoId}), now())`,
        ...(raised ? { priority: 1, raised_at: sql<Date>`now()` } : ahead ? { raised_at: sql<Date>`now()` } : {}),
        rank,
        ...(needs && Object.keys(needs).length > 0 ? { needs: JSON.stringify(needs) } : {}),
        ...(segments
          ? {
              renditions: sql<string[]>`${sql.val(segments.renditions)}::text[]`,
              first_segment: segments.firstSegment,
              segment_count: segments.segmentCount,
            }
          : {}),
      })
      .execute();
  });
  return id;
}

/**
 * A viewer asks for a segment that does not exist yet: the run that makes it goes ahead of all
 * background work. A queued entry is raised (the next free slot, or a node's demand slot, takes
 * it); a run already running has no entry any more, so its lease is marked raised and the
 * orchestrator holding it asks the node to run that ffmpeg at the priority of urgent work
 * (docs/decisions/just-in-time.md). The run of the next segment, when still queued, becomes the
 * first of the video's background runs (`raised_at` at priority 0): a viewer waiting for segment k
 * asks for k+1 next, and hls.js, seeking to a segment boundary, asks for the segment before its
 * target first. It is not made urgent: two urgent runs on one node's cores would each take twice
 * as long, and the viewer waits for the first one now (the bench saw seeks wait 16 to 19 s so).
 * Answers whether a queued entry or a lease covers the segment itself (false: made already, or not
 * the farm's to make, or its run is not queued yet). `readAhead` false: the segment's runs only (a
 * video's first bootstrap run raising the rest of its first segment, which no viewer asked for yet).
 */
export async function raiseSegmentPriority(
  db: Db,
  {
    videoId,
    rendition,
    segment,
    readAhead = true,
  }: { videoId: string; rendition: string; segment: number; readAhead?: boolean },
): Promise<boolean> {
  // The same columns on both tables: rows of this rendition from the segment's run to the next one's.
  const makesSegmentOrNext = sql<boolean>`${rendition} = any(renditions) and first_segment <= ${segment + 1} and first_segment + segment_count > ${segment}`;
  // Entries first, then leases: an entry granted and taken in between is found by its lease.
  const entries = await db
    .selectFrom('encode_queue')
    .select(['id', 'first_segment'])
    .where('video_id', '=', videoId)
    .where('lease_id', 'is', null)
    .where(makesSegmentOrNext)
    .execute();
  // A row that starts at or before the segment makes it; one that starts after it makes the next.
  const makesSegment = (row: { first_segment: number | null }) => row.first_segment! <= segment;
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
  const urgent = entries.filter(makesSegment);
  const next = readAhead ? entries.filter((row) => !makesSegment(row)) : [];
  let changed = 0n;
  if (urgent.length > 0) {
    changed += (
      await db
        .updateTable('encode_queue')
        .set({ priority: 1, raised_at: sql<Date>`now()` })
        .where('id', 'in', ids(urgent))
        .where('priority', '=', 0)
        .executeTakeFirst()
    ).numUpdatedRows;
  }
  if (next.length > 0) {
    changed += (
      await db
        .updateTable('encode_queue')
        .set({ raised_at: sql<Date>`now()` })
        .where('id', 'in', ids(next))
        .where('priority', '=', 0)
        .where('raised_at', 'is', null)
        .executeTakeFirst()
    ).numUpdatedRows;
  }
  const leases = (
    await db
      .selectFrom('node_leases')
      .select(['id', 'first_segment'])
      .where('video_id', '=', videoId)
      .where(makesSegmentOrNext)
      .execute()
  ).filter(makesSegment);
  // A lease raised once (at grant, or by an earlier request) stays raised: nothing to tell again.
  if (leases.length > 0) {
    changed += (
      await db
        .updateTable('node_leases')
        .set({ raised_at: sql<Date>`now()` })
        .where('id', 'in', ids(leases))
        .where('raised_at', 'is', null)
        .executeTakeFirst()
    ).numUpdatedRows;
  }
  if (changed > 0n) await notifyFarmChanged(db);
  return urgent.length > 0 || leases.length > 0;
}

/** The waiters of these entries are alive (rows not touched for a while are dropped by dispatch). */
export async function touchQueueEntries(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('encode_queue')
    .set({ touched_at: sql<Date>`now()` })
    .where('id', 'in', ids)
    .execute();
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
  /** Someone waits for it (priority 1): the node runs it ahead of its other encodes, in its demand slot when its slots are full. */
  urgent: boolean;
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
      .select([
        'q.id as entryId',
        'q.lease_id as grantedLeaseId',
        'l.id as leaseId',
        'q.priority',
        'l.raised_at',
        'n.id as nodeId',
        'n.address',
      ])
      .where('q.id', 'in', ids)
      .where('q.lease_id', 'is not', null)
      .forUpdate('q')
      .execute();
    const taken = granted.filter((g) => g.leaseId !== null && g.nodeId !== null && g.address !== null);
    const dropped = granted.filter((g) => !taken.includes(g));
    if (taken.length > 0)
      await trx
        .deleteFrom('encode_queue')
        .where(
          'id',
          'in',
          taken.map((g) => g.entryId),
        )
        .execute();
    if (dropped.length > 0) {
      await trx
        .updateTable('encode_queue')
        .set({ lease_id: null })
        .where(
          'id',
          'in',
          dropped.map((g) => g.entryId),
        )
        .execute();
    }
    // A lease raised between its grant and now (its entry had no priority at grant) starts urgent.
    return taken.map((g) => ({
      entryId: g.entryId,
      leaseId: g.leaseId!,
      nodeId: g.nodeId!,
      address: g.address!,
      urgent: g.priority > 0 || g.raised_at !== null,
    }));
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
 * every orchestrator (an advisory lock), so no slot is granted twice. Order: first the entries
 * someone waits for (priority 1, the earliest raised first), each on a free slot or, when every
 * slot is taken, on a node's demand slot (one per node beside its slots: the node runs it ahead of
 * its background encodes, which slow down meanwhile and go on); then the rest in a fair order:
 * the videos holding the fewest slots first (a long video's many encodes cannot starve a short
 * video queued after it), then the video that came first, then its playback order, then the encode
 * queued first. Each slot goes to the least loaded live node.
 */
export async function dispatchEncodeQueue(db: Db, { heartbeatTimeoutMs, staleMs }: DispatchOptions): Promise<number> {
  return oneTransactionAtATime(db, () =>
    db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${dispatchLockKey})`.execute(trx);
      const stale = await trx
        .deleteFrom('encode_queue')
        .where('touched_at', '<', ago(staleMs))
        .returning('lease_id')
        .execute();
      const staleLeases = stale.map((row) => row.lease_id).filter((lease): lease is string => lease !== null);
      if (staleLeases.length > 0) await trx.deleteFrom('node_leases').where('id', 'in', staleLeases).execute();

      const waiting = await trx
        .selectFrom('encode_queue')
        .select([
          'id',
          'video_id',
          'job',
          'priority',
          'renditions',
          'first_segment',
          'segment_count',
          'needs',
          'waiting_for',
        ])
        .where('lease_id', 'is', null)
        .orderBy('priority', 'desc')
        .orderBy('raised_at')
        .orderBy('video_since')
        .orderBy('rank')
        .orderBy('seq')
        .execute();
      if (waiting.length === 0) return 0;
      // Locked as acquireNodeSlot locks them, so a grant never overbooks a node.
      const rows = await trx
        .selectFrom('encode_nodes')
        .select(['id', 'slots', 'encoders', 'quality_ffmpeg', 'labels', 'transcribe_languages'])
        .where('state', '=', 'active')
        .where('drain_requested_at', 'is', null)
        .where('last_heartbeat_at', '>', ago(heartbeatTimeoutMs))
        .orderBy('id')
        .forUpdate()
        .execute();
      const nodes = rows.map((n) => ({
        ...n,
        qualityFfmpeg: n.quality_ffmpeg,
        transcribeLanguages: n.transcribe_languages,
      }));
      await recordWhyWaiting(trx, waiting, nodes);
      if (nodes.length === 0) return 0;
      const leases = await trx.selectFrom('node_leases').select(['node_id', 'video_id', 'on_demand']).execute();
      const used = new Map<string, number>();
      const demandUsed = new Set<string>();
      const running = new Map<string, number>();
      for (const lease of leases) {
        if (lease.on_demand) demandUsed.add(lease.node_id);
        else used.set(lease.node_id, (used.get(lease.node_id) ?? 0) + 1);
        running.set(lease.video_id, (running.get(lease.video_id) ?? 0) + 1);
      }
      // The least loaded node with a free slot that can run the entry (its needs: codecs, labels).
      const freeNode = (entry: (typeof waiting)[number]) =>
        nodes
          .filter((n) => canRun(n, entry.needs))
          .map((n) => ({ id: n.id, slots: n.slots, used: used.get(n.id) ?? 0 }))
          .filter((n) => n.used < n.slots)
          .sort(compareNodeLoad)[0];

      let granted = 0;
      const grant = async (entry: (typeof waiting)[number], nodeId: string, onDemand: boolean) => {
        const leaseId = `lease_${randomBase62(16)}`;
        // The lease carries the segments its run makes: a viewer's request for one while it runs raises it.
        await trx
          .insertInto('node_leases')
          .values({
            id: leaseId,
            node_id: nodeId,
            video_id: entry.video_id,
            job: entry.job,
            on_demand: onDemand,
            ...(entry.renditions
              ? {
                  renditions: sql<string[]>`${sql.val(entry.renditions)}::text[]`,
                  first_segment: entry.first_segment,
                  segment_count: entry.segment_count,
                }
              : {}),
            ...(entry.priority > 0 ? { raised_at: sql<Date>`now()` } : {}),
          })
          .execute();
        await trx.updateTable('encode_queue').set({ lease_id: leaseId }).where('id', '=', entry.id).execute();
        if (onDemand) demandUsed.add(nodeId);
        else used.set(nodeId, (used.get(nodeId) ?? 0) + 1);
        running.set(entry.video_id, (running.get(entry.video_id) ?? 0) + 1);
        granted += 1;
      };

      const urgent = waiting.filter((entry) => entry.priority > 0);
      for (const entry of urgent) {
        const node = freeNode(entry);
        if (node) {
          await grant(entry, node.id, false);
          continue;
        }
        // An entry no node can run waits; the next urgent one may still fit a demand slot.
        const demand = nodes.find((n) => !demandUsed.has(n.id) && canRun(n, entry.needs));
        if (demand) await grant(entry, demand.id, true);
      }
      const queue = waiting.filter((entry) => entry.priority === 0);
      for (;;) {
        // The first (in queue order) among the entries a free slot can take whose video holds the
        // fewest slots: an entry only some nodes can run does not hold up the rest.
        let best: { k: number; node: { id: string } } | undefined;
        for (let k = 0; k < queue.length; k += 1) {
          if (best && (running.get(queue[k]!.video_id) ?? 0) >= (running.get(queue[best.k]!.video_id) ?? 0)) continue;
          const node = freeNode(queue[k]!);
          if (node) best = { k, node };
        }
        if (!best) break;
        const [entry] = queue.splice(best.k, 1);
        await grant(entry!, best.node.id, false);
      }
      if (granted > 0) await notifyFarmChanged(trx);
      return granted;
    }),
  );
}

/**
 * Writes on each waiting entry why no live node can run it (whyNoNodeCanRun over `liveNodes`), or
 * clears it when one can: the video's details and the operators' list read it (findWhyWaiting,
 * listWaitingEncodes). Only the rows whose reason changed are written.
 */
async function recordWhyWaiting(
  trx: Db,
  waiting: { id: string; needs: JobNeeds | null; waiting_for: string | null }[],
  liveNodes: NodeCapabilities[],
): Promise<void> {
  const byReason = new Map<string | null, string[]>();
  for (const entry of waiting) {
    // With no live node at all, plain work just waits for one (no reason written, as before); work
    // with needs says that no node is live.
    const reason = (liveNodes.length > 0 || entry.needs ? whyNoNodeCanRun(entry.needs, liveNodes) : undefined) ?? null;
    if (reason === entry.waiting_for) continue;
    byReason.set(reason, [...(byReason.get(reason) ?? []), entry.id]);
  }
  for (const [reason, ids] of byReason)
    await trx.updateTable('encode_queue').set({ waiting_for: reason }).where('id', 'in', ids).execute();
}

/** Why an encode of this video waits for a node that can run it (the first such entry's reason), or undefined. */
export async function findWhyWaiting(db: Db, videoId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('encode_queue')
    .select('waiting_for')
    .where('video_id', '=', videoId)
    .where('waiting_for', 'is not', null)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  return row?.waiting_for ?? undefined;
}

export interface WaitingEncode {
  videoId: string;
  job: string;
  needs: JobNeeds | null;
  waitingFor: string;
  enqueuedAt: Date;
}

/** Every encode that waits because no live node can run it, oldest first (the operators' list). */
export async function listWaitingEncodes(db: Db): Promise<WaitingEncode[]> {
  const rows = await db
    .selectFrom('encode_queue')
    .select(['video_id', 'job', 'needs', 'waiting_for', 'enqueued_at'])
    .where('waiting_for', 'is not', null)
    .orderBy('seq')
    .execute();
  return rows.map((row) => ({
    videoId: row.video_id,
    job: row.job,
    needs: row.needs,
    waitingFor: row.waiting_for!,
    enqueuedAt: row.enqueued_at,
  }));
}
