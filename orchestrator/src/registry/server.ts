// The NodeRegistry gRPC server, hosted by the orchestrator process: encode nodes register,
// heartbeat and deregister here; a sweep marks nodes that stopped heartbeating as gone.
import { createHash, timingSafeEqual } from 'node:crypto';
import { GrpcStatus, grpc, nodeRegistryDefinition, type NodeRegistryHandlers } from '@kino/proto';
import type { Counter, Logger } from '@kino/infra';
import type { Db } from '@kino/database';
import { deregisterNode, expireDeadNodes, recordHeartbeat, registerNode } from '@kino/database/repositories';

export interface RegistryServerOptions {
  db: Db;
  host: string;
  /** 0 picks a free port (see the handle's `port`). */
  port: number;
  /** The farm token every node presents. */
  token: string;
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

class RegistryRequestError extends Error {
  constructor(
    readonly code: GrpcStatus,
    message: string,
  ) {
    super(message);
  }
}

/** What the registry's handlers answer with: the farm's tables, its token, its timings. */
interface RegistryContext extends Pick<
  RegistryServerOptions,
  'db' | 'token' | 'heartbeatTimeoutMs' | 'logger' | 'heartbeats'
> {
  leaseGraceMs: number;
}

/** Register, Heartbeat and Deregister: each authenticates the farm token, then updates the node's rows. */
function createRegistryHandlers({
  db,
  token,
  heartbeatTimeoutMs,
  logger,
  leaseGraceMs,
  heartbeats,
}: RegistryContext): NodeRegistryHandlers {
  const expected = createHash('sha256').update(token).digest();
  const authenticate = (presented: string) => {
    if (!timingSafeEqual(createHash('sha256').update(presented).digest(), expected)) {
      throw new RegistryRequestError(GrpcStatus.UNAUTHENTICATED, 'wrong or missing farm token');
    }
  };
  // One mapping from failures to statuses; database trouble is UNAVAILABLE so nodes just retry.
  const statusOf = (error: unknown): Partial<grpc.StatusObject> =>
    error instanceof RegistryRequestError
      ? { code: error.code, details: error.message }
      : {
          code: GrpcStatus.UNAVAILABLE,
          details: `registry error: ${error instanceof Error ? error.message : String(error)}`,
        };

  return {
    Register(call, callback) {
      const request = call.request;
      (async () => {
        authenticate(request.token);
        if (!/^[^\s:]+:\d{1,5}$/.test(request.address) && !/^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(request.address)) {
          throw new RegistryRequestError(
            GrpcStatus.INVALID_ARGUMENT,
            `address must be HOST:PORT (got "${request.address}")`,
          );
        }
        if (!(request.slots >= 1))
          throw new RegistryRequestError(GrpcStatus.INVALID_ARGUMENT, 'slots must be 1 or more');
        const node = await registerNode(db, {
          nodeId: request.nodeId,
          address: request.address,
          slots: request.slots,
          version: request.version,
          labels: request.labels,
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
        authenticate(request.token);
        const known = await recordHeartbeat(db, {
          nodeId: request.nodeId,
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
        authenticate(request.token);
        await deregisterNode(db, request.nodeId);
        logger.info({ nodeId: request.nodeId }, 'node deregistered');
        return {};
      })().then(
        (response) => callback(null, response),
        (error: unknown) => callback(statusOf(error)),
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
    server.bindAsync(`${options.host}:${options.port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
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
  logger.info({ address, heartbeatTimeoutMs }, 'node registry listening');
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
