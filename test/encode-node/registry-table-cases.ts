// The registry's tables (the encode-nodes and node-leases repositories), as test cases run twice:
// on PGlite (registry-pglite.test.ts) and on a real PostgreSQL server (registry.test.ts), since both
// must behave alike.
import { it } from 'vitest';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import {
  acquireNodeSlot,
  countActiveNodesSince,
  dispatchEncodeQueue,
  enqueueEncode,
  leaveEncodeQueue,
  takeGrantedLeases,
  deregisterNode,
  markNodeLost,
  markNodeLostAt,
  releaseJobLeases,
  expireDeadNodes,
  findLiveNode,
  listLiveNodes,
  recordHeartbeat,
  registerNode,
  releaseNodeSlot,
  setNodeDrainRequested,
} from '@kino/database/repositories';
import type { Db } from '@kino/database';

// Long enough that a slow machine never ages a node between two steps of a case; the cases that
// want a silent node age it past this on purpose.
const timeout = 60_000;

/** Registers the cases; `db()` returns the (migrated) database of the current run. */
export function registryTableCases(db: () => Db): void {
  let port = 7100;
  const register = (
    slots: number,
    extra: { nodeId?: string; address?: string; labels?: Record<string, string> } = {},
  ) =>
    registerNode(db(), {
      address: extra.address ?? `127.0.0.1:${++port}`,
      slots,
      version: '0.1.0',
      labels: extra.labels ?? {},
      nodeId: extra.nodeId,
    });
  const age = async (nodeId: string, ms: number) => {
    await db()
      .updateTable('encode_nodes')
      .set({ last_heartbeat_at: sql<Date>`now() - (${ms}::double precision * interval '1 millisecond')` })
      .where('id', '=', nodeId)
      .execute();
  };
  const reset = async () => {
    await db().deleteFrom('encode_queue').execute();
    await db().deleteFrom('node_leases').execute();
    await db().deleteFrom('encode_nodes').execute();
  };

  it('registers a node (new id), and keeps the id it brings back', async () => {
    await reset();
    const node = await register(2, { labels: { zone: 'a' } });
    assert.match(node.id, /^node_[A-Za-z0-9]{16}$/);
    assert.equal(node.state, 'active');
    assert.deepEqual(node.labels, { zone: 'a' });
    const again = await register(3, { nodeId: node.id, address: node.address });
    assert.equal(again.id, node.id);
    assert.equal(again.slots, 3);
    const invalidId = await register(1, { nodeId: 'not a valid id!' });
    assert.notEqual(invalidId.id, 'not a valid id!');
  });

  it('nodes connected through one relay share its address; a connection ending marks its node lost only at that relay', async () => {
    await reset();
    const relay = '10.0.0.5:7092';
    const first = await register(1, { address: relay });
    const second = await register(1, { address: relay });
    const lease = await acquireNodeSlot(db(), { videoId: 'vid_a', job: 'j1', heartbeatTimeoutMs: timeout });
    const held = lease!.node.id;
    const other = held === first.id ? second.id : first.id;
    assert.deepEqual(
      (await listLiveNodes(db(), { heartbeatTimeoutMs: timeout })).map((n) => n.id).sort(),
      [first.id, second.id].sort(),
    );
    // The node connected again to another orchestrator: its old connection ending there changes nothing.
    await register(1, { nodeId: held, address: '10.0.0.6:7092' });
    assert.equal(await markNodeLostAt(db(), held, relay), false);
    assert.equal(await markNodeLostAt(db(), other, relay), true);
    const live = await listLiveNodes(db(), { heartbeatTimeoutMs: timeout });
    assert.deepEqual(
      live.map((n) => n.id),
      [held],
    );
  });

  it('takes slots on the least loaded live node, never more than its slots', async () => {
    await reset();
    const big = await register(2);
    const small = await register(1);
    const taken = [];
    for (let i = 0; i < 3; i++)
      taken.push(await acquireNodeSlot(db(), { videoId: 'vid_b', job: `j${i}`, heartbeatTimeoutMs: timeout }));
    assert.deepEqual(taken.map((t) => t?.node.id).sort(), [big.id, big.id, small.id].sort());
    assert.equal(
      await acquireNodeSlot(db(), { videoId: 'vid_b', job: 'j3', heartbeatTimeoutMs: timeout }),
      undefined,
      'all 3 slots taken',
    );
    await releaseNodeSlot(db(), taken[0]!.leaseId);
    await releaseNodeSlot(db(), taken[0]!.leaseId); // twice is harmless
    const next = await acquireNodeSlot(db(), { videoId: 'vid_b', job: 'j4', heartbeatTimeoutMs: timeout });
    assert.equal(next?.node.id, taken[0]!.node.id);
  });

  it('excludes the nodes it is told to', async () => {
    await reset();
    const a = await register(1);
    const b = await register(1);
    const lease = await acquireNodeSlot(db(), {
      videoId: 'v',
      job: 'j',
      heartbeatTimeoutMs: timeout,
      excludeNodeIds: [a.id],
    });
    assert.equal(lease?.node.id, b.id);
    assert.equal(
      await acquireNodeSlot(db(), { videoId: 'v', job: 'k', heartbeatTimeoutMs: timeout, excludeNodeIds: [a.id] }),
      undefined,
    );
    assert.equal((await findLiveNode(db(), { heartbeatTimeoutMs: timeout, excludeNodeIds: [b.id] }))?.id, a.id);
  });

  it('sends a short job to the least loaded node, away from the node the queue grants an encode', async () => {
    await reset();
    // Ids whose order by code unit (Z before a) and by locale (a before Z) differ.
    const first = await register(1, { nodeId: 'node_Zeta' });
    const second = await register(1, { nodeId: 'node_alpha' });
    const shortJobNode = await findLiveNode(db(), { heartbeatTimeoutMs: timeout });
    await enqueueEncode(db(), { videoId: 'v', job: 'j' });
    assert.equal(await dispatchEncodeQueue(db(), { heartbeatTimeoutMs: timeout, staleMs: 60_000 }), 1);
    const granted = await db().selectFrom('node_leases').select(['id', 'node_id']).executeTakeFirstOrThrow();
    assert.equal(granted.node_id, first.id, 'encodes fill from the first node by id');
    assert.equal(shortJobNode?.id, second.id, 'an idle farm: the short job goes to the other end');
    await acquireNodeSlot(db(), { videoId: 'v', job: 'k', heartbeatTimeoutMs: timeout });
    await releaseNodeSlot(db(), granted.id);
    assert.equal(
      (await findLiveNode(db(), { heartbeatTimeoutMs: timeout }))?.id,
      first.id,
      'a busy node is passed over',
    );
  });

  it('skips silent and draining nodes; heartbeats keep a node live and say when it is unknown', async () => {
    await reset();
    const silent = await register(1);
    const draining = await register(1);
    await age(silent.id, timeout + 1_000);
    assert.equal(
      await recordHeartbeat(db(), { nodeId: draining.id, draining: true, activeJobs: [], leaseGraceMs: 30_000 }),
      true,
    );
    assert.equal(await acquireNodeSlot(db(), { videoId: 'v', job: 'j', heartbeatTimeoutMs: timeout }), undefined);
    assert.equal(
      await recordHeartbeat(db(), { nodeId: silent.id, draining: false, activeJobs: [], leaseGraceMs: 30_000 }),
      true,
    );
    assert.equal(
      (await acquireNodeSlot(db(), { videoId: 'v', job: 'j', heartbeatTimeoutMs: timeout }))?.node.id,
      silent.id,
    );
    assert.equal(
      await recordHeartbeat(db(), {
        nodeId: 'node_neverregistered0',
        draining: false,
        activeJobs: [],
        leaseGraceMs: 30_000,
      }),
      false,
    );
  });

  it('expires nodes that stopped heartbeating and frees their slots', async () => {
    await reset();
    const dead = await register(2);
    const alive = await register(1);
    await acquireNodeSlot(db(), { videoId: 'v', job: 'a', heartbeatTimeoutMs: timeout, excludeNodeIds: [alive.id] });
    await age(dead.id, timeout + 1_000);
    assert.deepEqual(await expireDeadNodes(db(), timeout), [dead.id]);
    assert.deepEqual(await expireDeadNodes(db(), timeout), [], 'once');
    const row = await db()
      .selectFrom('encode_nodes')
      .select('state')
      .where('id', '=', dead.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.state, 'gone');
    const leases = await db().selectFrom('node_leases').selectAll().where('node_id', '=', dead.id).execute();
    assert.equal(leases.length, 0);
    assert.equal(
      await recordHeartbeat(db(), { nodeId: dead.id, draining: false, activeJobs: [], leaseGraceMs: 30_000 }),
      false,
      'gone: must register again',
    );
    const back = await register(2, { nodeId: dead.id, address: dead.address });
    assert.equal(back.state, 'active');
  });

  it('frees leases whose job the node no longer runs, after a grace period', async () => {
    await reset();
    const node = await register(3);
    const running = await acquireNodeSlot(db(), { videoId: 'v', job: 'running-job', heartbeatTimeoutMs: timeout });
    const orphan = await acquireNodeSlot(db(), { videoId: 'v', job: 'orphan-job', heartbeatTimeoutMs: timeout });
    const young = await acquireNodeSlot(db(), { videoId: 'v', job: 'just-taken', heartbeatTimeoutMs: timeout });
    await db()
      .updateTable('node_leases')
      .set({ acquired_at: sql<Date>`now() - interval '1 minute'` })
      .where('id', 'in', [running!.leaseId, orphan!.leaseId])
      .execute();
    await recordHeartbeat(db(), {
      nodeId: node.id,
      draining: false,
      activeJobs: ['running-job'],
      leaseGraceMs: 30_000,
    });
    const left = await db()
      .selectFrom('node_leases')
      .select('job')
      .where('node_id', '=', node.id)
      .orderBy('job')
      .execute();
    assert.deepEqual(
      left.map((l) => l.job),
      ['just-taken', 'running-job'],
    );
    assert.ok(young);
  });

  it('deregistering makes a node gone at once', async () => {
    await reset();
    const node = await register(1);
    await acquireNodeSlot(db(), { videoId: 'v', job: 'j', heartbeatTimeoutMs: timeout });
    await deregisterNode(db(), node.id);
    assert.deepEqual(await listLiveNodes(db(), { heartbeatTimeoutMs: timeout }), []);
    assert.equal((await db().selectFrom('node_leases').selectAll().execute()).length, 0);
  });

  it('concurrent acquisitions never overbook a node', async () => {
    await reset();
    await register(2);
    await register(1);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        acquireNodeSlot(db(), { videoId: 'v', job: `c${i}`, heartbeatTimeoutMs: timeout }),
      ),
    );
    assert.equal(results.filter(Boolean).length, 3);
    const perNode = await listLiveNodes(db(), { heartbeatTimeoutMs: timeout });
    for (const node of perNode) assert.equal(node.used, node.slots, node.id);
  });

  it("counts the active nodes at these addresses heard from since a time (the dev stack's readiness)", async () => {
    await reset();
    const before = new Date(Date.now() - 60_000);
    const a = await register(1, { address: '10.0.1.1:7101' });
    const b = await register(1, { address: '10.0.1.2:7102' });
    await register(1, { address: '10.0.1.3:7103' });
    assert.equal(await countActiveNodesSince(db(), ['10.0.1.1:7101', '10.0.1.2:7102', '10.9.9.9:1'], before), 2);
    await markNodeLost(db(), b.id);
    assert.equal(await countActiveNodesSince(db(), ['10.0.1.1:7101', '10.0.1.2:7102'], before), 1);
    await age(a.id, 120_000);
    assert.equal(await countActiveNodesSince(db(), ['10.0.1.1:7101', '10.0.1.2:7102'], before), 0);
    assert.equal(await countActiveNodesSince(db(), [], before), 0);
  });

  it("a job's leases from earlier attempts are dropped before it takes a slot again", async () => {
    await reset();
    await register(1);
    assert.ok(await acquireNodeSlot(db(), { videoId: 'v', job: 'encode-1', heartbeatTimeoutMs: timeout }));
    assert.equal(
      await acquireNodeSlot(db(), { videoId: 'v', job: 'encode-1', heartbeatTimeoutMs: timeout }),
      undefined,
      'the one slot is held',
    );
    await releaseJobLeases(db(), 'encode-1');
    assert.ok(await acquireNodeSlot(db(), { videoId: 'v', job: 'encode-1', heartbeatTimeoutMs: timeout }));
  });

  it("the encode queue grants free slots fairly: a long video's encodes take turns with a short video queued after them", async () => {
    await reset();
    const dispatch = () => dispatchEncodeQueue(db(), { heartbeatTimeoutMs: timeout, staleMs: 60_000 });
    assert.equal(await dispatch(), 0, 'nothing waits');
    const long = [];
    for (let i = 0; i < 4; i += 1) long.push(await enqueueEncode(db(), { videoId: 'vid_long', job: `long-${i}` }));
    const short = await enqueueEncode(db(), { videoId: 'vid_short', job: 'short-0' });
    const all = [...long, short];
    assert.equal(await dispatch(), 0, 'no node: nothing granted, everything waits');
    await register(2);
    assert.equal(await dispatch(), 2);
    const first = await takeGrantedLeases(db(), all);
    assert.deepEqual(first.map((g) => g.entryId).sort(), [long[0], short].sort(), 'the oldest encode of each video');
    assert.deepEqual(await takeGrantedLeases(db(), all), [], 'a grant is taken once');
    assert.equal(await dispatch(), 0, 'both slots are held');

    // A slot comes back: the long video's next encode, in queue order.
    await releaseNodeSlot(db(), first[0]!.leaseId);
    assert.equal(await dispatch(), 1);
    assert.deepEqual(
      (await takeGrantedLeases(db(), all)).map((g) => g.entryId),
      [long[1]],
    );

    // A waiter that leaves gives back a slot granted meanwhile; a node lost takes its grants back.
    await releaseNodeSlot(db(), first[1]!.leaseId);
    assert.equal(await dispatch(), 1);
    await leaveEncodeQueue(db(), long[2]!);
    assert.equal(await dispatch(), 1, 'the slot long-2 left goes to long-3');
    const [node] = await listLiveNodes(db(), { heartbeatTimeoutMs: timeout });
    await markNodeLost(db(), node!.id);
    assert.deepEqual(await takeGrantedLeases(db(), [long[3]!]), [], 'its lease went with the node: no grant');
    assert.equal(
      (await db().selectFrom('encode_queue').select(['id', 'lease_id']).where('id', '=', long[3]!).executeTakeFirst())
        ?.lease_id,
      null,
      'queued again',
    );
    assert.deepEqual(await db().selectFrom('node_leases').select('id').execute(), [], "the lost node's slots are free");
  });

  it('a node back from gone with stale work is quarantined: no work until a heartbeat says it runs nothing', async () => {
    await reset();
    const hung = await register(1);
    const stale = await acquireNodeSlot(db(), { videoId: 'vid_a', job: 'stale', heartbeatTimeoutMs: timeout });
    assert.equal(stale?.node.id, hung.id);
    // Silent (SIGSTOP) past the heartbeat timeout: gone, its slot freed, its encode moved elsewhere.
    await age(hung.id, timeout + 1_000);
    assert.deepEqual(await expireDeadNodes(db(), timeout), [hung.id]);
    // SIGCONT: it heartbeats still running the stale encode, is told to register again, and does.
    assert.equal(
      await recordHeartbeat(db(), { nodeId: hung.id, draining: false, activeJobs: ['stale'], leaseGraceMs: 0 }),
      false,
    );
    const back = await register(1, { nodeId: hung.id, address: hung.address });
    assert.equal(back.state, 'draining');
    assert.ok(back.quarantined_at instanceof Date);
    const noWork = async (why: string) => {
      assert.equal(
        await acquireNodeSlot(db(), { videoId: 'vid_b', job: 'new', heartbeatTimeoutMs: timeout }),
        undefined,
        why,
      );
      assert.equal(await findLiveNode(db(), { heartbeatTimeoutMs: timeout }), undefined, why);
    };
    await noWork('no work right after it registers again');
    // Its heartbeats say `active` while the stale encode runs: the quarantine stands, and the stale job holds no slot.
    assert.equal(
      await recordHeartbeat(db(), { nodeId: hung.id, draining: false, activeJobs: ['stale'], leaseGraceMs: 0 }),
      true,
    );
    await noWork('no work while the stale encode runs');
    assert.deepEqual(await db().selectFrom('node_leases').selectAll().where('node_id', '=', hung.id).execute(), []);
    // Clean (the stale encode ended): it takes work again.
    assert.equal(
      await recordHeartbeat(db(), { nodeId: hung.id, draining: false, activeJobs: [], leaseGraceMs: 0 }),
      true,
    );
    const row = await db()
      .selectFrom('encode_nodes')
      .select(['state', 'quarantined_at'])
      .where('id', '=', hung.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { state: 'active', quarantined_at: null });
    assert.equal(
      (await acquireNodeSlot(db(), { videoId: 'vid_b', job: 'new', heartbeatTimeoutMs: timeout }))?.node.id,
      hung.id,
    );
    // A node that died (no running job when it comes back) is not quarantined at all.
    const dead = await register(1);
    await age(dead.id, timeout + 1_000);
    await expireDeadNodes(db(), timeout);
    assert.equal(
      await recordHeartbeat(db(), { nodeId: dead.id, draining: false, activeJobs: [], leaseGraceMs: 0 }),
      false,
    );
    assert.equal((await register(1, { nodeId: dead.id, address: dead.address })).state, 'active');
  });

  it("an operator's drain: no new slot, no grant, no short job; leases kept; heartbeats do not undo it; undrained, it takes work", async () => {
    await reset();
    const node = await register(2);
    const running = await acquireNodeSlot(db(), { videoId: 'vid_a', job: 'running', heartbeatTimeoutMs: timeout });
    assert.equal(running?.node.id, node.id);
    const drained = await setNodeDrainRequested(db(), node.id, true);
    assert.ok(drained?.drain_requested_at instanceof Date);
    // Its own heartbeat says `active`: the operator's drain stands.
    assert.equal(
      await recordHeartbeat(db(), { nodeId: node.id, draining: false, activeJobs: ['running'], leaseGraceMs: 0 }),
      true,
    );
    assert.equal(
      await acquireNodeSlot(db(), { videoId: 'vid_b', job: 'new', heartbeatTimeoutMs: timeout }),
      undefined,
      'no slot on a drained node',
    );
    assert.equal(await findLiveNode(db(), { heartbeatTimeoutMs: timeout }), undefined, 'no short job either');
    const waiting = await enqueueEncode(db(), { videoId: 'vid_b', job: 'queued' });
    const dispatch = () => dispatchEncodeQueue(db(), { heartbeatTimeoutMs: timeout, staleMs: 60_000 });
    assert.equal(await dispatch(), 0, 'the queue grants it nothing');
    assert.deepEqual(
      (await db().selectFrom('node_leases').select('job').execute()).map((l) => l.job),
      ['running'],
      'the running encode keeps its slot',
    );

    assert.equal((await setNodeDrainRequested(db(), node.id, false))?.drain_requested_at, null);
    assert.equal(await dispatch(), 1);
    assert.deepEqual(
      (await takeGrantedLeases(db(), [waiting])).map((g) => g.nodeId),
      [node.id],
    );
    assert.equal(await setNodeDrainRequested(db(), 'node_unknown', true), undefined);
  });

  it('the encode queue drops rows of dead waiters, with the slots granted to them', async () => {
    await reset();
    await register(1);
    const dead = await enqueueEncode(db(), { videoId: 'vid_a', job: 'dead-waiter' });
    assert.equal(await dispatchEncodeQueue(db(), { heartbeatTimeoutMs: timeout, staleMs: 60_000 }), 1);
    await db()
      .updateTable('encode_queue')
      .set({ touched_at: sql<Date>`now() - interval '2 minutes'` })
      .where('id', '=', dead)
      .execute();
    const alive = await enqueueEncode(db(), { videoId: 'vid_b', job: 'alive-waiter' });
    assert.equal(
      await dispatchEncodeQueue(db(), { heartbeatTimeoutMs: timeout, staleMs: 60_000 }),
      1,
      "the dead waiter's slot goes on",
    );
    assert.deepEqual(
      (await takeGrantedLeases(db(), [dead, alive])).map((g) => g.entryId),
      [alive],
    );
  });
}
