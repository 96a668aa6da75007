// The orchestrator's metrics (docs/metrics.md): encodes this process runs and queues, encode
// seconds by rendition, webhook deliveries, heartbeats its registry received, and the farm's nodes,
// slots and heartbeat ages. The farm gauges are read from PostgreSQL at scrape time, so every
// orchestrator reports the same farm-wide values (aggregate them with max, not sum); the others are
// this process's own (sum them).
import { Counter, Gauge, Histogram, Registry } from '@kino/infra';
import type { Db } from '@kino/database';
import { listNodesForMetrics } from '@kino/database/repositories';

/** Encode wall times: a short chunk's seconds to a long ladder's hour. */
const encodeSecondsBuckets = [1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3600];

/** What activities and the registry record; a throwaway registry when none is given (unit tests). */
export function createOrchestratorMetrics(registry: Registry = new Registry()) {
  return {
    encodeSeconds: new Histogram({
      name: 'kino_encode_seconds',
      help: 'Wall time of successful Encode calls on nodes (slot granted to done), observed once per rendition the call made; kind: whole, chunk or audio (the audio track).',
      labelNames: ['rendition', 'kind'] as const,
      buckets: encodeSecondsBuckets,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'kino_webhook_deliveries_total',
      help: 'Webhook POST attempts, by result: delivered (2xx), refused (another status), unreachable (no answer), gone (the endpoint was deleted).',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    heartbeats: new Counter({
      name: 'kino_registry_heartbeats_total',
      help: 'Node heartbeats this registry answered, by result: known, or unknown (the node must register again).',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
  };
}
export type OrchestratorMetrics = ReturnType<typeof createOrchestratorMetrics>;

export interface FarmGaugeSources {
  db: Db;
  heartbeatTimeoutMs: number;
  /** This process's encodes: waiting in the encode queue, and holding a slot (running). */
  encodes(): { queued: number; running: number };
}

/** Gauges read when scraped: this process's encodes, and the farm's nodes from PostgreSQL. */
export function registerFarmGauges(registry: Registry, { db, heartbeatTimeoutMs, encodes }: FarmGaugeSources): void {
  new Gauge({
    name: 'kino_encodes_running',
    help: 'Encodes of this orchestrator holding a node slot (from the grant until the slot is given back).',
    registers: [registry],
    collect() {
      this.set(encodes().running);
    },
  });
  new Gauge({
    name: 'kino_encodes_queued',
    help: 'Encodes of this orchestrator waiting in the encode queue for a free slot.',
    registers: [registry],
    collect() {
      this.set(encodes().queued);
    },
  });
  // One query per scrape feeds the three farm gauges: the first to be collected reads, the others reuse it.
  let read: { at: number; nodes: Promise<Awaited<ReturnType<typeof listNodesForMetrics>>> } | undefined;
  const nodes = () => {
    if (!read || Date.now() - read.at > 1000)
      read = { at: Date.now(), nodes: listNodesForMetrics(db, { heartbeatTimeoutMs }) };
    return read.nodes;
  };
  new Gauge({
    name: 'kino_farm_nodes_live',
    help: 'Encode nodes taking work now (active, not drained, heartbeating in time). Farm-wide, from PostgreSQL.',
    registers: [registry],
    async collect() {
      this.set((await nodes()).filter((node) => node.live).length);
    },
  });
  new Gauge({
    name: 'kino_farm_slots',
    help: 'Encode slots of the live nodes, by state: total, or in_use (held by a lease). Farm-wide, from PostgreSQL.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const live = (await nodes()).filter((node) => node.live);
      this.reset();
      this.set(
        { state: 'total' },
        live.reduce((sum, node) => sum + node.slots, 0),
      );
      this.set(
        { state: 'in_use' },
        live.reduce((sum, node) => sum + node.used, 0),
      );
    },
  });
  new Gauge({
    name: 'kino_farm_node_heartbeat_age_seconds',
    help: 'Seconds since each registered node (not gone) last heartbeat, by node id. Farm-wide, from PostgreSQL.',
    labelNames: ['node'] as const,
    registers: [registry],
    async collect() {
      // Nodes that went are dropped from the series, not left at their last age.
      this.reset();
      for (const node of await nodes()) this.set({ node: node.id }, node.heartbeatAgeSeconds);
    },
  });
}
