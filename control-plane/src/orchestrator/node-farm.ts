// The orchestrator's view of the encode farm: is a node there, take a slot, give it back, stop using
// a node that failed mid-call, and a client to call a node. Activities depend on this interface so
// their tests can hand in fakes; `createNodeFarm` is the real one, over the
// encode-nodes and node-leases repositories.
import { createEncodeClient, type EncodeClient } from '@kino/proto';
import type { Db } from '../db/database.ts';
import { findLiveNode, listLiveNodes, markNodeLost } from '../repositories/encode-nodes.ts';
import { acquireNodeSlot, releaseJobLeases, releaseNodeSlot } from '../repositories/node-leases.ts';

export interface FarmNode {
  nodeId: string;
  /** HOST:PORT of the node's EncodeService. */
  address: string;
}

export interface NodeLease extends FarmNode {
  leaseId: string;
}

export interface NodeFarm {
  /** True when some live node is there, with a free encode slot when `freeSlot`. */
  hasLiveNode(options: { freeSlot: boolean }): Promise<boolean>;
  /** How many nodes are live now. */
  liveNodeCount(): Promise<number>;
  /**
   * Takes one encode slot on the least loaded live node for `job`, or undefined when none is free.
   * `job` is the id the node is given, one per activity (not per attempt): leases still held under
   * it belong to earlier attempts whose worker died (Temporal starts an attempt only once the
   * previous one is over), so they are dropped first.
   */
  acquire(request: { videoId: string; job: string }): Promise<NodeLease | undefined>;
  release(lease: NodeLease): Promise<void>;
  /** A live node for a short job that takes no slot (probe, thumbnail), least loaded first. */
  pickNode(): Promise<FarmNode | undefined>;
  /** Gives no more work to a node that vanished mid-call. A live node re-registers on its next heartbeat. */
  markLost(nodeId: string): Promise<void>;
  client(address: string): EncodeClient;
  /** Closes the node channels (at shutdown). */
  close(): void;
}

export function createNodeFarm({ db, nodeToken, heartbeatTimeoutMs }: { db: Db; nodeToken: string; heartbeatTimeoutMs: number }): NodeFarm {
  const clients = new Map<string, EncodeClient>();
  return {
    async hasLiveNode({ freeSlot }) {
      const nodes = await listLiveNodes(db, { heartbeatTimeoutMs });
      return nodes.some((node) => !freeSlot || node.used < node.slots);
    },

    async liveNodeCount() {
      return (await listLiveNodes(db, { heartbeatTimeoutMs })).length;
    },

    async acquire({ videoId, job }) {
      await releaseJobLeases(db, job);
      const lease = await acquireNodeSlot(db, { videoId, job, heartbeatTimeoutMs });
      return lease && { leaseId: lease.leaseId, nodeId: lease.node.id, address: lease.node.address };
    },

    async release(lease) {
      await releaseNodeSlot(db, lease.leaseId);
    },

    async pickNode() {
      const node = await findLiveNode(db, { heartbeatTimeoutMs });
      return node && { nodeId: node.id, address: node.address };
    },

    async markLost(nodeId) {
      await markNodeLost(db, nodeId);
    },

    client(address) {
      // One channel per node, kept: gRPC reconnects it by itself when the node comes back.
      let client = clients.get(address);
      if (!client) {
        client = createEncodeClient(address, nodeToken);
        clients.set(address, client);
      }
      return client;
    },

    close() {
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
