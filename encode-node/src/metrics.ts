// An encode node's metrics (docs/metrics.md): its slots, the jobs it runs and has run, and its
// heartbeats to the registry. Served by the node's metrics server (NODE_METRICS_PORT), its only
// listening port: its jobs come inside the connection it opens to the registry.
import { Counter, Gauge, type Registry } from '@kino/infra';
import { callKinds, type NodeJobs } from './node-jobs.ts';

export function createNodeMetrics(registry: Registry, jobs: NodeJobs) {
  new Gauge({
    name: 'kino_node_slots',
    help: "This node's encode slots, by state: total, or in_use (encodes running).",
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'total' }, jobs.slots);
      this.set({ state: 'in_use' }, jobs.encodesRunning);
    },
  });
  new Gauge({
    name: 'kino_node_jobs_running',
    help: 'Jobs running on this node, by kind (probe, encode, thumbnail, storyboard).',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const running = jobs.runningByKind();
      for (const kind of callKinds) this.set({ kind }, running[kind]);
    },
  });
  const lastHeartbeat = { at: 0 };
  new Gauge({
    name: 'kino_node_heartbeat_age_seconds',
    help: 'Seconds since the registry last acknowledged this node (a registration or a heartbeat).',
    registers: [registry],
    collect() {
      if (lastHeartbeat.at > 0) this.set((Date.now() - lastHeartbeat.at) / 1000);
    },
  });
  const heartbeats = new Counter({
    name: 'kino_node_heartbeats_total',
    help: 'Heartbeats this node sent, by result: ok (acknowledged), or failed (no answer or an error: the node registers again).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  return {
    jobs: new Counter({
      name: 'kino_node_jobs_total',
      help: 'Jobs this node finished, by kind and result: done, failed, or refused (busy, draining or a bad request).',
      labelNames: ['kind', 'result'] as const,
      registers: [registry],
    }),
    /** The registry answered (a registration or a heartbeat). */
    acknowledged(isHeartbeat: boolean): void {
      lastHeartbeat.at = Date.now();
      if (isHeartbeat) heartbeats.inc({ result: 'ok' });
    },
    heartbeatFailed(): void {
      heartbeats.inc({ result: 'failed' });
    },
  };
}
export type NodeMetrics = ReturnType<typeof createNodeMetrics>;
