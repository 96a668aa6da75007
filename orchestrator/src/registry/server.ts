// The NodeRegistry gRPC server, hosted by the orchestrator process: encode nodes enroll, register,
// heartbeat and deregister here; a sweep marks nodes that stopped heartbeating as gone. With the
// farm's TLS it serves over TLS and knows each node by its certificate (node-identity.ts).
import {
  GrpcStatus,
  grpc,
  nodeRegistryDefinition,
  registryServerCredentials,
  type NodeRegistryHandlers,
} from '@kino/proto';
import type { Counter, Logger } from '@kino/infra';
import type { Db } from '@kino/database';
import { deregisterNode, expireDeadNodes, recordHeartbeat, registerNode } from '@kino/database/repositories';
import { enrollNode } from './enroll.ts';
import type { FarmTls } from './farm-tls.ts';
import { RegistryRequestError, createNodeAuthenticator } from './node-identity.ts';

export interface RegistryServerOptions {
  db: Db;
  host: string;
  /** 0 picks a free port (see the handle's `port`). */
  port: number;
  /** The shared farm token nodes present on plaintext (REGISTRY_ACCEPT_NODE_TOKEN); unused with TLS. */
  token?: string;
  /** The farm's TLS: the registry serves over it and nodes authenticate with their certificates. */
  tls?: FarmTls;
  /** A node silent for this long is gone: no more work, its slots freed. */
  heartbeatTimeoutMs: number;
  logger: Logger;
  /** Leases a node does not report running are freed after this long (default: max(30 s, 3 timeouts)). */
  leaseGraceMs?: number;
  /** Counts the heartbeats answered, by result (known / unknown): the orchestrator's metrics. */
  heartbeats?: Counter<'result'>;
}

export interface RegistryServer {
  /** HOST:PORT the server listens on. */
  readonly address: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** How often nodes should heartbeat: three chances before the timeout. */
export function heartbeatIntervalFor(heartbeatTimeoutMs: number): number {
  return Math.max(100, Math.floor(heartbeatTimeoutMs / 3));
}

/** Refuses a registration whose address or slots cannot be used. */
function checkRegistration({ address, slots }: { address: string; slots: number }): void {
  if (!/^[^\s:]+:\d{1,5}$/.test(address) && !/^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(address))
    throw new RegistryRequestError(GrpcStatus.INVALID_ARGUMENT, `address must be HOST:PORT (got "${address}")`);
  if (!(slots >= 1)) throw new RegistryRequestError(GrpcStatus.INVALID_ARGUMENT, 'slots must be 1 or more');
}

// One mapping from failures to statuses; database trouble is UNAVAILABLE so nodes just retry.
function statusOf(error: unknown): Partial<grpc.StatusObject> {
  return error instanceof RegistryRequestError
    ? { code: error.code, details: error.message }
    : {
        code: GrpcStatus.UNAVAILABLE,
        details: `registry error: ${error instanceof Error ? error.message : String(error)}`,
      };
}

/** What the registry's handlers answer with: the farm's tables, its credentials, its timings. */
interface RegistryContext extends Pick<
  RegistryServerOptions,
  'db' | 'token' | 'tls' | 'heartbeatTimeoutMs' | 'logger' | 'heartbeats'
> {
  leaseGraceMs: number;
}

/**
 * Register, Heartbeat and Deregister: each authenticates the node (its certificate, or the shared
 * token), then updates the node's rows; a node with a credential is the node its credential names,
 * with the labels it was enrolled with. Enroll trades a token for a credential.
 */
function createRegistryHandlers({
  db,
  token,
  tls,
  heartbeatTimeoutMs,
  logger,
  leaseGraceMs,
  heartbeats,
}: RegistryContext): NodeRegistryHandlers {
  const authenticate = createNodeAuthenticator({ db, token, tls: tls !== undefined });
  return {
    Register(call, callback) {
      const request = call.request;
      (async () => {
        const credential = await authenticate(call, request.token);
        checkRegistration(request);
        const node = await registerNode(db, {
          nodeId: credential?.node_id ?? request.nodeId,
          address: request.address,
          slots: request.slots,
          version: request.version,
          // The operator's labels at enrollment: a node cannot claim a customer's label by itself.
          labels: credential?.labels ?? request.labels,
          encoders: request.encoders,
          qualityFfmpeg: request.qualityFfmpeg,
        });
        logger.info(
          {
            nodeId: node.id,
            address: node.address,
            slots: node.slots,
            version: node.version,
            labels: node.labels,
            encoders: node.encoders,
            qualityFfmpeg: node.quality_ffmpeg,
            reused: node.id === request.nodeId,
            wasGone: node.wasGone,
            // A node with a credential has its enrollment's labels: its own NODE_LABELS are not used.
            ...(credential && Object.keys(request.labels).length > 0 ? { ignoredLabels: request.labels } : {}),
          },
          'node registered',
        );
        return {
          nodeId: node.id,
          heartbeatIntervalMs: heartbeatIntervalFor(heartbeatTimeoutMs),
          wasGone: node.wasGone,
        };
      })().then(
        (response) => callback(null, response),
        (error: unknown) => {
          logger.warn({ err: error, address: request.address }, 'node registration refused');
          callback(statusOf(error));
        },
      );
    },

    Heartbeat(call, callback) {
      const request = call.request;
      (async () => {
        const credential = await authenticate(call, request.token);
        const known = await recordHeartbeat(db, {
          nodeId: credential?.node_id ?? request.nodeId,
          draining: request.draining,
          activeJobs: request.activeJobs,
          leaseGraceMs,
        });
        heartbeats?.inc({ result: known ? 'known' : 'unknown' });
        if (!known && request.activeJobs.length > 0) {
          logger.warn(
            { nodeId: request.nodeId, staleJobs: request.activeJobs },
            'node back from gone with stale work: quarantined (no new work) until a heartbeat reports no running job',
          );
        } else if (!known) {
          logger.info(
            { nodeId: request.nodeId },
            'heartbeat from a node the registry does not know: it will register again',
          );
        }
        return { known };
      })().then(
        (response) => callback(null, response),
        (error: unknown) => callback(statusOf(error)),
      );
    },

    Deregister(call, callback) {
      const request = call.request;
      (async () => {
        const credential = await authenticate(call, request.token);
        const nodeId = credential?.node_id ?? request.nodeId;
        await deregisterNode(db, nodeId);
        logger.info({ nodeId }, 'node deregistered');
        return {};
      })().then(
        (response) => callback(null, response),
        (error: unknown) => callback(statusOf(error)),
      );
    },

    Enroll(call, callback) {
      enrollNode(db, tls, call.request).then(
        (response) => {
          logger.info({ nodeId: response.nodeId }, 'node enrolled');
          callback(null, response);
        },
        (error: unknown) => {
          logger.warn({ err: error }, 'enrollment refused');
          callback(statusOf(error));
        },
      );
    },
  };
}

export async function startRegistryServer(options: RegistryServerOptions): Promise<RegistryServer> {
  const { db, heartbeatTimeoutMs, logger } = options;
  const leaseGraceMs = options.leaseGraceMs ?? Math.max(30_000, heartbeatTimeoutMs * 3);
  const handlers = createRegistryHandlers({ ...options, leaseGraceMs });

  const server = new grpc.Server();
  server.addService(nodeRegistryDefinition, handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${options.host}:${options.port}`,
      options.tls ? registryServerCredentials(options.tls.identity) : grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    ),
  );

  // Nodes that stopped heartbeating lose their leases here; selection already skips them by age.
  const sweepEveryMs = Math.max(100, Math.floor(heartbeatTimeoutMs / 2));
  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    expireDeadNodes(db, heartbeatTimeoutMs)
      .then((gone) => {
        if (gone.length > 0) logger.warn({ nodeIds: gone }, 'nodes stopped heartbeating: marked gone');
      })
      .catch((error: unknown) => logger.error({ err: error }, 'expiring dead nodes failed'))
      .finally(() => {
        sweeping = false;
      });
  }, sweepEveryMs);
  sweep.unref();

  const address = `${options.host}:${port}`;
  logger.info({ address, heartbeatTimeoutMs, tls: options.tls !== undefined }, 'node registry listening');
  return {
    address,
    port,
    async stop() {
      clearInterval(sweep);
      await new Promise<void>((resolve) => {
        // Give in-flight calls a moment, then cut: nodes retry against the next orchestrator.
        const timer = setTimeout(() => server.forceShutdown(), 2_000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
