// Where the dev stack keeps its state and which loopback ports it uses. Everything is derived from
// two knobs, a directory and a port base, so a test can run a whole second stack in a temp dir on
// free ports without touching a developer's running one.
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { devStateDir } from '@kino/infra';
import { freePortBase } from '../index.ts';

/** The default port base: the design's dev ports are base + offset (API 7080, S3 7333, ...). */
export const defaultPortBase = 7000;

/** Offsets from the port base. Temporal's 7233 clashes too often with a developer's own Temporal. */
export const portOffsets = {
  api: 80,
  delivery: 81,
  /** The dev OpenID provider the dashboard signs in against (in the launcher's process). */
  identity: 85,
  analytics: 123,
  registry: 90,
  /** GET /metrics of the orchestrator and of each encode node. */
  orchestratorMetrics: 91,
  /** The orchestrator's node relay: calls to the encode nodes connected to it go there (nodes listen on no port). */
  relay: 92,
  /** Live ingest's RTMP listener (`kino ingest`; 1935 outside the stack), publishers' rtmp://…/live. */
  ingestRtmp: 935,
  /** Its SRT listener (UDP; 9710 outside the stack), publishers' srt://…?streamid=<key>. */
  ingestSrt: 971,
  firstNodeMetrics: 201,
  s3: 333,
  postgres: 432,
  temporal: 10_233,
} as const;

/** The farm's processes, each a `kino` command; 'node' is every encode node. */
export type KinoPart = 'api' | 'orchestrator' | 'node' | 'delivery' | 'ingest' | 'analytics';

export interface DevStackOptions {
  /** State directory; default `.kino/` at the repo root (env KINO_DEV_DIR). */
  dir?: string;
  /** Port base (env KINO_DEV_PORT_BASE); see portOffsets. */
  portBase?: number;
  /** Encode nodes to start (env KINO_DEV_NODES); default 2. 0 (tests): none, start them with startNode. */
  nodes?: number;
  /** Slots per encode node (env KINO_DEV_NODE_SLOTS); default: the cores shared out among the nodes. */
  slots?: number;
  // The options below are for tests and benchmarks; `kino dev` runs everything with the defaults.
  /**
   * Parts to leave out (default: none). Without Temporal the API answers with Temporal unreachable.
   * `speech`: the nodes' speech engine (captions from speech), whose model each node loads at start.
   */
  without?: ('temporal' | 'orchestrator' | 'delivery' | 'ingest' | 'speech')[];
  /** The analytics store: chDB behind `kino analytics-store` (default), Debian's ClickHouse server, or none. */
  analytics?: 'chdb' | 'clickhouse-server' | 'none';
  /** Extra environment per part (e.g. orchestrator: NODE_HEARTBEAT_TIMEOUT_MS, ENCODE_GROUPING). */
  env?: Partial<Record<KinoPart, Record<string, string>>>;
  /**
   * The Temporal server: the dev server (default, state in one SQLite file) or the server production
   * runs, with PostgreSQL persistence in the stack's PostgreSQL (built on first use, see
   * dev/setup/temporal-server.sh).
   */
  temporal?: 'dev-server' | 'postgres';
  /** Whether PostgreSQL syncs its writes to disk (default true; throwaway test stacks skip it). */
  durable?: boolean;
  /**
   * Run the parts on other hosts than this machine's loopback (the multi-host test puts each in a
   * network namespace): the control plane's host (its services, the API, the orchestrator, the
   * analytics store) and delivery's. Encode nodes get theirs from startNode.
   */
  hosts?: { controlPlane: StackHost; delivery?: StackHost };
  /**
   * Start a part that exits unexpectedly again, after a backoff, and say so on the console, as a
   * process supervisor would. `kino dev` turns it on; tests leave it off, since they kill parts on
   * purpose and start them again themselves.
   */
  restartExited?: boolean;
}

/** Where a part runs: the address it binds to and advertises, and the prefix that runs a command there. */
export interface StackHost {
  address: string;
  /** e.g. ['ip', 'netns', 'exec', 'kino-h1'] (see startProcess's runIn). */
  runIn: string[];
}

export interface DevStackLayout {
  dir: string;
  logsDir: string;
  postgresDir: string;
  temporalDb: string;
  /** The production Temporal server's configuration (DevStackOptions.temporal 'postgres'). */
  temporalServerDir: string;
  s3Dir: string;
  analyticsDir: string;
  deliveryCacheDir: string;
  deliverySpoolDir: string;
  /** Ingest's RTMP library's own state (its session history). */
  ingestDir: string;
  /** `{apiUrl, deliveryUrl, orgId, envId, apiKey, databaseUrl}`: what clients read. */
  devJson: string;
  /** Shell-sourceable settings for running one part alone against the dev stack's services. */
  devEnv: string;
  /** Generated once, kept: the farm token and the S3 credentials. */
  secretsJson: string;
  /** The running launcher and its children (pids), to find leftovers of a launcher that was killed. */
  pidsJson: string;
  host: string;
  ports: {
    api: number;
    delivery: number;
    identity: number;
    analytics: number;
    registry: number;
    orchestratorMetrics: number;
    relay: number;
    ingestRtmp: number;
    ingestSrt: number;
    /** The metrics port of each encode node the stack starts (one entry per node). */
    nodeMetrics: number[];
    s3: number;
    postgres: number;
    temporal: number;
  };
  nodeSlots: number;
}

function intFromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer (got "${raw}")`);
  return value;
}

export function devStackLayout(options: DevStackOptions = {}): DevStackLayout {
  const dir = options.dir !== undefined ? resolve(options.dir) : devStateDir();
  const base = options.portBase ?? intFromEnv('KINO_DEV_PORT_BASE') ?? defaultPortBase;
  const nodeCount = options.nodes ?? intFromEnv('KINO_DEV_NODES') ?? 2;
  if (nodeCount < 1 && options.nodes !== 0) throw new Error('the dev stack needs at least one encode node');
  // ffmpeg already spreads one encode over every core, so more slots than cores only adds queueing
  // inside the machine: share the cores out among the nodes, at least one slot each.
  const nodeSlots =
    options.slots ?? intFromEnv('KINO_DEV_NODE_SLOTS') ?? Math.max(1, Math.floor(availableParallelism() / nodeCount));
  if (base + portOffsets.temporal > 65_535)
    throw new Error(`port base ${base} is too high: Temporal would be above 65535`);
  return {
    dir,
    logsDir: join(dir, 'logs'),
    postgresDir: join(dir, 'postgres'),
    temporalDb: join(dir, 'temporal.db'),
    temporalServerDir: join(dir, 'temporal-server'),
    s3Dir: join(dir, 's3'),
    analyticsDir: join(dir, 'analytics'),
    deliveryCacheDir: join(dir, 'delivery', 'cache'),
    deliverySpoolDir: join(dir, 'delivery', 'spool'),
    ingestDir: join(dir, 'ingest'),
    devJson: join(dir, 'dev.json'),
    devEnv: join(dir, 'dev.env'),
    secretsJson: join(dir, 'secrets.json'),
    pidsJson: join(dir, 'dev.pids.json'),
    host: options.hosts?.controlPlane.address ?? '127.0.0.1',
    ports: {
      api: base + portOffsets.api,
      delivery: base + portOffsets.delivery,
      identity: base + portOffsets.identity,
      analytics: base + portOffsets.analytics,
      registry: base + portOffsets.registry,
      orchestratorMetrics: base + portOffsets.orchestratorMetrics,
      relay: base + portOffsets.relay,
      ingestRtmp: base + portOffsets.ingestRtmp,
      ingestSrt: base + portOffsets.ingestSrt,
      nodeMetrics: Array.from({ length: nodeCount }, (_, i) => base + portOffsets.firstNodeMetrics + i),
      s3: base + portOffsets.s3,
      postgres: base + portOffsets.postgres,
      temporal: base + portOffsets.temporal,
    },
    nodeSlots,
  };
}

/** Every port of the layout with the part that owns it, for the "port taken" check. */
export function layoutPorts(layout: DevStackLayout): { name: string; port: number }[] {
  const { ports } = layout;
  return [
    { name: 'PostgreSQL', port: ports.postgres },
    { name: 'Temporal', port: ports.temporal },
    { name: 'S3 (SeaweedFS)', port: ports.s3 },
    { name: 'analytics', port: ports.analytics },
    { name: 'API', port: ports.api },
    { name: 'node registry (orchestrator)', port: ports.registry },
    { name: 'orchestrator metrics', port: ports.orchestratorMetrics },
    { name: 'delivery', port: ports.delivery },
    { name: 'dev identity provider', port: ports.identity },
    { name: 'node relay (orchestrator)', port: ports.relay },
    { name: 'ingest (RTMP)', port: ports.ingestRtmp },
    ...ports.nodeMetrics.map((port, i) => ({ name: `encode node ${i + 1} metrics`, port })),
  ];
}

/** Encode nodes a stack can run (each has a metrics port, base + firstNodeMetrics + i). */
export const maxNodes = 22;

/**
 * A port base with every port of a stack free (tests, a second stack). Temporal's dev server also
 * listens on its port + 1000 (HTTP API).
 */
export function freeDevPortBase(): Promise<number> {
  const offsets = Object.values(portOffsets).filter((offset) => offset !== portOffsets.firstNodeMetrics);
  const nodeOffsets = Array.from({ length: maxNodes }, (_, i) => portOffsets.firstNodeMetrics + i);
  return freePortBase([...offsets, ...nodeOffsets, portOffsets.temporal + 1000]);
}
