// The orchestrator's view of the encode farm: is there room, take a slot, give it back, stop using
// a node that failed mid-call, and a client to call a node. Activities depend on this interface so
// their tests can hand in fakes; `createNodeFarm` is the real one over the registry's tables.
import { createEncodeClient, type EncodeClient } from '@kino/proto';
import { newId } from '@kino/infra';
import type { Db } from '../db/database.ts';

export interface NodeLease {
  leaseId: string;
  nodeId: string;
  /** HOST:PORT of the node's EncodeService. */
  address: string;
}

export interface NodeFarm {
  /** True when some live node has a free slot right now. */
  hasFreeSlot(): Promise<boolean>;
  /**
   * Takes one slot on the least loaded live node for `job`, or undefined when none is free.
   * Leases still held under the same `job` belong to earlier attempts of the same activity, whose
   * worker died (a new attempt only starts once the previous one is over): they are dropped first.
   */
  acquire(request: { videoId: string; job: string }): Promise<NodeLease | undefined>;
  release(lease: NodeLease): Promise<void>;
  /** Gives no more work to a node that vanished mid-call; a live node re-registers on its next heartbeat. */
  markLost(nodeId: string): Promise<void>;
  client(address: string): EncodeClient;
}

/**
 * The farm over the `encode_nodes` / `node_leases` tables the NodeRegistry maintains. A node is
 * live while it is `active` and its last heartbeat is younger than `heartbeatTimeoutMs`.
 */
export function createNodeFarm({ db, nodeToken, heartbeatTimeoutMs }: { db: Db; nodeToken: string; heartbeatTimeoutMs: number }): NodeFarm {
  const liveSince = () => new Date(Date.now() - heartbeatTimeoutMs);
  const clients = new Map<string, EncodeClient>();

  return {
    async hasFreeSlot() {
      const row = await db
        .selectFrom('encode_nodes as n')
        .select((eb) => eb.fn.countAll<number>().as('free'))
        .where('n.state', '=', 'active')
        .where('n.last_heartbeat_at', '>', liveSince())
        .where((eb) =>
          eb('n.slots', '>', eb.selectFrom('node_leases as l').select((l) => l.fn.countAll<number>().as('used')).whereRef('l.node_id', '=', 'n.id')),
        )
        .executeTakeFirstOrThrow();
      return Number(row.free) > 0;
    },

    async acquire({ videoId, job }) {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('node_leases').where('job', '=', job).execute();
        // Lock the live nodes' rows: concurrent acquisitions queue here instead of overbooking a node.
        const nodes = await trx
          .selectFrom('encode_nodes as n')
          .select(['n.id', 'n.address', 'n.slots'])
          .select((eb) =>
            eb.selectFrom('node_leases as l').select((l) => l.fn.countAll<number>().as('used')).whereRef('l.node_id', '=', 'n.id').as('used'),
          )
          .where('n.state', '=', 'active')
          .where('n.last_heartbeat_at', '>', liveSince())
          .forUpdate()
          .execute();
        const free = nodes
          .map((n) => ({ ...n, used: Number(n.used ?? 0) }))
          .filter((n) => n.used < n.slots)
          .sort((a, b) => a.used / a.slots - b.used / b.slots || b.slots - b.used - (a.slots - a.used));
        const node = free[0];
        if (!node) return undefined;
        const leaseId = newId('job');
        await trx.insertInto('node_leases').values({ id: leaseId, node_id: node.id, video_id: videoId, job }).execute();
        return { leaseId, nodeId: node.id, address: node.address };
      });
    },

    async release(lease) {
      await db.deleteFrom('node_leases').where('id', '=', lease.leaseId).execute();
    },

    async markLost(nodeId) {
      await db
        .updateTable('encode_nodes')
        .set({ state: 'gone' })
        .where('id', '=', nodeId)
        .where('state', '!=', 'gone')
        .execute();
    },

    client(address) {
      let client = clients.get(address);
      if (!client) {
        client = createEncodeClient(address, nodeToken);
        clients.set(address, client);
      }
      return client;
    },
  };
}
