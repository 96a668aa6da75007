// The NodeRegistry gRPC server, hosted by the orchestrator process: encode nodes enroll, connect (and
// so register), heartbeat and deregister here; a sweep marks nodes that stopped heartbeating as gone.
// With the farm's TLS it serves over TLS and knows each node by its certificate (node-identity.ts).
// Beside it runs the relay (relay.ts) the orchestrators call the nodes connected here through.
import {
  GrpcStatus,
  grpc,
  nodeRegistryDefinition,
  registryServerCredentials,
  tunnelOver,
  verifiedPeerOf,
  type NodeRegistryHandlers,
  type NodeFrame__Output,
  type RegisterRequest__Output,
  type RegisterResponse,
  type RegistryFrame,
} from '@kino/proto';
import type { Counter, Logger } from '@kino/infra';
import type { Db, NodeCredential } from '@kino/database';
import {
  deregisterNode,
  expireDeadNodes,
  markNodeLostAt,
  recordHeartbeat,
  registerNode,
} from '@kino/database/repositories';
import { enrollNode } from './enroll.ts';
import { renewNode } from './renew.ts';
import type { FarmTls } from './farm-tls.ts';
import { RegistryRequestError, createNodeAuthenticator } from './node-identity.ts';
import { startRelay, type Relay } from './relay.ts';

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
  /** The relay's port (0, the default: any free one) and the address recorded for the nodes connected here (relay.ts). */
  relayPort?: number;
  relayAdvertise?: string;
}

export interface RegistryServer {
  /** HOST:PORT the server listens on. */
  readonly address: string;
  readonly port: number;
  /** HOST:PORT of the relay the nodes connected here are called through. */
  readonly relayAddress: string;
  stop(): Promise<void>;
}

/** How often nodes should heartbeat: three chances before the timeout. */
export function heartbeatIntervalFor(heartbeatTimeoutMs: number): number {
  return Math.max(100, Math.floor(heartbeatTimeoutMs / 3));
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

/** What the registry's handlers answer with: the farm's tables, its credentials, its timings, its relay. */
interface RegistryContext extends Pick<
  RegistryServerOptions,
  'db' | 'token' | 'tls' | 'heartbeatTimeoutMs' | 'logger' | 'heartbeats'
> {
  leaseGraceMs: number;
  relay: Relay;
}

type ConnectCall = Parameters<NodeRegistryHandlers['Connect']>[0];

/** How long a node has to say hello once its stream is open. */
const helloTimeoutMs = 10_000;

/** The first frame of a Connect stream, which must be the node's hello. */
function readHello(call: ConnectCall): Promise<RegisterRequest__Output> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new RegistryRequestError(GrpcStatus.DEADLINE_EXCEEDED, 'no hello')),
      helloTimeoutMs,
    );
    const done = () => {
      clearTimeout(timer);
      call.off('data', onFrame);
    };
    const onFrame = (frame: NodeFrame__Output) => {
      done();
      if (frame.frame === 'hello' && frame.hello) resolve(frame.hello);
      else reject(new RegistryRequestError(GrpcStatus.INVALID_ARGUMENT, 'the first frame must be the hello'));
    };
    call.on('data', onFrame);
    call.once('end', () => {
      done();
      reject(new RegistryRequestError(GrpcStatus.CANCELLED, 'the node left before its hello'));
    });
  });
}

/**
 * Registers the node of a hello, called through this orchestrator's relay. A node with a credential
 * is the node its credential names, with the labels it was enrolled with.
 */
async function registerHello(
  { db, logger, heartbeatTimeoutMs, relay }: RegistryContext,
  request: RegisterRequest__Output,
  credential: NodeCredential | undefined,
): Promise<RegisterResponse> {
  if (!(request.slots >= 1)) throw new RegistryRequestError(GrpcStatus.INVALID_ARGUMENT, 'slots must be 1 or more');
  const node = await registerNode(db, {
    nodeId: credential?.node_id ?? request.nodeId,
    address: relay.address,
    slots: request.slots,
    version: request.version,
    // The operator's labels at enrollment: a node cannot claim a customer's label by itself.
    labels: credential?.labels ?? request.labels,
    encoders: request.encoders,
    qualityFfmpeg: request.qualityFfmpeg,
    transcribeLanguages: request.transcribeLanguages,
  });
  logger.info(
    {
      nodeId: node.id,
      relay: node.address,
      slots: node.slots,
      version: node.version,
      labels: node.labels,
      encoders: node.encoders,
      qualityFfmpeg: node.quality_ffmpeg,
      transcribeLanguages: node.transcribe_languages,
      reused: node.id === request.nodeId,
      wasGone: node.wasGone,
      // A node with a credential has its enrollment's labels: its own NODE_LABELS are not used.
      ...(credential && Object.keys(request.labels).length > 0 ? { ignoredLabels: request.labels } : {}),
    },
    'node connected',
  );
  return {
    nodeId: node.id,
    heartbeatIntervalMs: heartbeatIntervalFor(heartbeatTimeoutMs),
    wasGone: node.wasGone,
    relayAddress: relay.address,
  };
}

/**
 * Welcomes a registered node and runs the HTTP/2 session of its tunnel in the relay until the
 * stream ends. Then the calls in it have failed (their callers take the node for lost), so the node
 * is marked lost at once and its slots freed, unless it connected again meanwhile (here: the relay
 * holds a newer session; elsewhere: its row names another relay).
 */
function holdConnection({ db, logger, relay }: RegistryContext, call: ConnectCall, welcome: RegisterResponse): void {
  const nodeId = welcome.nodeId!;
  const tunnel = tunnelOver<RegistryFrame>(call, () => call.end());
  call.write({ welcome });
  const session = relay.attach(nodeId, tunnel);
  session.once('close', () => {
    if (!relay.detach(nodeId, session)) return;
    markNodeLostAt(db, nodeId, relay.address)
      .then((lost) => {
        if (lost) logger.warn({ nodeId }, "node's connection ended: marked lost");
      })
      .catch((error: unknown) =>
        logger.error({ err: error, nodeId }, 'marking a disconnected node lost failed (the sweep will)'),
      );
  });
}

/**
 * A refusal of a revoked node's call (PERMISSION_DENIED) also ends its Connect stream here, if it
 * holds one: the node's calls fail, its work moves on, whether or not the node itself stops.
 */
function endRevokedConnection(
  { relay, logger }: RegistryContext,
  call: Parameters<typeof verifiedPeerOf>[0],
  error: unknown,
): void {
  if (!(error instanceof RegistryRequestError) || error.code !== GrpcStatus.PERMISSION_DENIED) return;
  const nodeId = verifiedPeerOf(call)?.commonName;
  if (nodeId && relay.disconnect(nodeId)) logger.warn({ nodeId }, "a revoked node's connection ended");
}

/**
 * Connect, Heartbeat and Deregister: each authenticates the node (its certificate, or the shared
 * token), then updates the node's rows. Enroll trades a token for a credential.
 */
function createRegistryHandlers(context: RegistryContext): NodeRegistryHandlers {
  const { db, token, tls, logger, leaseGraceMs, heartbeats } = context;
  const authenticate = createNodeAuthenticator({ db, token, tls: tls !== undefined });
  return {
    Connect(call) {
      (async () => {
        const hello = await readHello(call);
        const credential = await authenticate(call, hello.token);
        holdConnection(context, call, await registerHello(context, hello, credential));
      })().catch((error: unknown) => {
        logger.warn({ err: error }, 'node connection refused');
        call.emit('error', statusOf(error));
      });
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
        (error: unknown) => {
          endRevokedConnection(context, call, error);
          callback(statusOf(error));
        },
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

    Renew(call, callback) {
      renewNode(db, tls, call).then(
        ({ nodeId, serial, ...response }) => {
          logger.info({ nodeId, serial }, 'node certificate renewed');
          callback(null, response);
        },
        (error: unknown) => {
          logger.warn({ err: error }, 'certificate renewal refused');
          callback(statusOf(error));
        },
      );
    },
  };
}

export async function startRegistryServer(options: RegistryServerOptions): Promise<RegistryServer> {
  const { db, heartbeatTimeoutMs, logger } = options;
  const leaseGraceMs = options.leaseGraceMs ?? Math.max(30_000, heartbeatTimeoutMs * 3);
  const relay = await startRelay({
    host: options.host,
    port: options.relayPort ?? 0,
    ...(options.relayAdvertise ? { advertise: options.relayAdvertise } : {}),
    logger,
  });
  const handlers = createRegistryHandlers({ ...options, leaseGraceMs, relay });

  // Keepalive pings end the Connect stream of a node whose host vanished without a word (its
  // session in the relay closes with it); the heartbeat sweep has marked it gone by then.
  const server = new grpc.Server({ 'grpc.keepalive_time_ms': 15_000, 'grpc.keepalive_timeout_ms': 10_000 });
  server.addService(nodeRegistryDefinition, handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${options.host}:${options.port}`,
      options.tls ? registryServerCredentials(options.tls.identity) : grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    ),
  ).catch(async (error: unknown) => {
    await relay.close();
    throw error;
  });

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
    relayAddress: relay.address,
    async stop() {
      clearInterval(sweep);
      await relay.close();
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
