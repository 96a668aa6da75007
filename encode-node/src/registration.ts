// A node's side of the registry: connect (its Connect stream, which registers it; with retries
// until the control plane answers), then heartbeat with the running jobs; connect again when the
// stream ended, the registry forgot the node (`known: false`, e.g. after it was marked gone) or could
// not be reached. Hearing that it was marked gone, from a heartbeat or from the welcome of
// connecting again, the node abandons its running jobs. Each connection's tunnel goes to `serve`:
// the node's EncodeService runs inside it.
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import pRetry from 'p-retry';
import { GrpcStatus, isServiceError, type NodeConnection, type RegistryClient } from '@kino/proto';
import type { NodeJobs } from './node-jobs.ts';
import type { NodeMetrics } from './metrics.ts';

export interface RegistrationOptions {
  /** The client of its calls; useRegistry replaces it (a renewed certificate). */
  registry: RegistryClient;
  /** Serves the node's EncodeService on a connection's tunnel. */
  serve: (tunnel: Duplex) => void;
  slots: number;
  version: string;
  labels: Record<string, string>;
  /** The encoders of its ffmpeg that work, and whether its quality ffmpeg does (capabilities.ts). */
  encoders: string[];
  qualityFfmpeg: boolean;
  /** The languages its speech engine transcribes (capabilities.ts); empty: none. */
  transcribeLanguages?: string[];
  jobs: NodeJobs;
  logger: Logger;
  /** Told of each answer of the registry and each failed heartbeat (the node's metrics). */
  metrics?: Pick<NodeMetrics, 'acknowledged' | 'heartbeatFailed'>;
}

const firstRetryMs = 250;
const maxRetryMs = 5_000;

/** The registry refused the node itself (an unknown or wrong credential or token): retrying cannot help. */
function isRefusal(error: unknown): boolean {
  return (
    isServiceError(error) && (error.code === GrpcStatus.UNAUTHENTICATED || error.code === GrpcStatus.PERMISSION_DENIED)
  );
}

/** The node's credential was revoked (the registry's PERMISSION_DENIED, node-identity.ts): the node stops for good. */
function isRevocation(error: unknown): boolean {
  return isServiceError(error) && error.code === GrpcStatus.PERMISSION_DENIED;
}

export class Registration {
  nodeId = '';
  /** HOST:PORT of the relay the orchestrators call this node through (the registry's welcome says). */
  relayAddress = '';
  private connection: NodeConnection | undefined;
  /** Clients replaced by useRegistry, closed once the connection opened through them ends. */
  private retired: RegistryClient[] = [];
  /** The connection is open: the registry holds the node (a failed heartbeat alone is no reason to connect again). */
  private connected = false;
  private intervalMs = 2_000;
  private needsRegister = true;
  private stopped = false;
  private wake: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private markRevoked: (error: Error) => void = () => {};
  /** Settles with the registry's answer when it says this node's credential was revoked. */
  readonly revoked = new Promise<Error>((resolve) => {
    this.markRevoked = resolve;
  });

  private readonly options: RegistrationOptions;
  constructor(options: RegistrationOptions) {
    this.options = options;
  }

  private async register(): Promise<void> {
    const {
      registry,
      slots,
      version,
      labels,
      encoders,
      qualityFfmpeg,
      transcribeLanguages = [],
      logger,
    } = this.options;
    // One connection at a time: a new one replaces the last (the registry marks the node lost when
    // the last one ends; the welcome of this one then says the node was gone).
    this.connection?.close();
    const connection = await registry.connect(
      { nodeId: this.nodeId, slots, version, labels, encoders, qualityFfmpeg, transcribeLanguages },
      { timeoutMs: 5_000 },
    );
    this.connection = connection;
    this.connected = true;
    this.options.serve(connection.tunnel);
    const retiredBefore = this.retired;
    this.retired = [];
    for (const client of retiredBefore) client.close();
    void connection.ended.then(() => {
      if (this.connection !== connection || this.stopped) return;
      this.connected = false;
      logger.warn({ nodeId: this.nodeId }, 'the connection to the registry ended; connecting again');
      this.needsRegister = true;
      this.wake?.();
    });
    const response = connection.welcome;
    const reRegistered = this.nodeId !== '';
    this.nodeId = response.nodeId;
    this.relayAddress = response.relayAddress;
    this.intervalMs = response.heartbeatIntervalMs > 0 ? response.heartbeatIntervalMs : this.intervalMs;
    this.needsRegister = false;
    this.options.metrics?.acknowledged(false);
    logger.info(
      { nodeId: this.nodeId, relay: this.relayAddress, heartbeatIntervalMs: this.intervalMs },
      reRegistered ? 're-registered' : 'registered',
    );
    // Its heartbeat after a hang failed on the way, so the node registered again without hearing
    // `known: false`: the answer says it instead.
    if (response.wasGone) this.abandonJobs();
  }

  /**
   * The registry had marked this node gone (it hung past the heartbeat timeout, or a caller found
   * it lost): the orchestrator gave up on what it runs and sent that work elsewhere, so none of it
   * may answer or upload late.
   */
  private abandonJobs(): void {
    const abandoned = this.options.jobs.abandonAll('the registry marked this node gone: its work moved to other nodes');
    if (abandoned > 0)
      this.options.logger.warn({ nodeId: this.nodeId, abandoned }, 'back from gone: running jobs abandoned');
  }

  /** Registers, retrying with backoff until the registry answers (it may start after the node). */
  async registerUntilDone(): Promise<void> {
    await pRetry(() => this.register(), {
      retries: Infinity,
      minTimeout: firstRetryMs,
      maxTimeout: maxRetryMs,
      shouldRetry: ({ error }) => !isRefusal(error),
      onFailedAttempt: ({ error, attemptNumber }) => {
        this.options.logger.warn({ err: error, attempt: attemptNumber }, 'registry unreachable, will retry');
      },
    });
  }

  private async beat(): Promise<void> {
    const { registry, jobs, logger } = this.options;
    try {
      const heartbeat = async () => {
        const response = await registry.heartbeat(
          { nodeId: this.nodeId, activeJobs: jobs.activeJobIds(), draining: jobs.isDraining },
          { timeoutMs: Math.max(1_000, this.intervalMs) },
        );
        if (response.known) this.options.metrics?.acknowledged(true);
        return response;
      };
      // A (re-)registration makes the node `active`: the heartbeat right after it tells the
      // registry at once if the node is in fact draining.
      if (this.needsRegister) await this.register();
      const response = await heartbeat();
      if (!response.known) {
        this.abandonJobs();
        logger.warn({ nodeId: this.nodeId }, 'registry does not know this node any more; registering again');
        this.needsRegister = true;
        await this.register();
        await heartbeat();
      }
    } catch (error) {
      this.options.metrics?.heartbeatFailed();
      if (isRevocation(error)) {
        // Its work has moved on (the registry dropped its leases): none of it may answer or upload.
        this.abandonJobs();
        this.stopped = true;
        logger.error({ err: error, nodeId: this.nodeId }, 'this node was revoked: it stops');
        this.markRevoked(error as Error);
        // Its stream goes too (the registry ends it as well): nothing more runs in it.
        this.disconnect();
        return;
      }
      // With its connection open the registry still holds the node: connecting again would end that
      // connection and with it every call running in it. The next heartbeat tries again; a registry
      // that dropped the node answers it `known: false`.
      if (this.connected) {
        logger.warn({ err: error, nodeId: this.nodeId }, 'heartbeat failed; its connection is open: trying again');
        return;
      }
      if (!this.needsRegister)
        logger.warn({ err: error, nodeId: this.nodeId }, 'heartbeat failed; will register again');
      this.needsRegister = true;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** Heartbeats until stop(). */
  start(): void {
    this.loopDone = (async () => {
      while (!this.stopped) {
        await this.sleep(this.intervalMs);
        if (!this.stopped) await this.beat();
      }
    })();
  }

  /**
   * Makes every later call with `registry` (a client of the node's renewed certificate). The open
   * connection stays on the client it was opened with, and so does the work running in it; that
   * client is closed when a new connection replaces it.
   */
  useRegistry(registry: RegistryClient): void {
    this.retired.push(this.options.registry);
    this.options.registry = registry;
  }

  /** The client later calls go through. */
  get registry(): RegistryClient {
    return this.options.registry;
  }

  /** Sends a heartbeat now (the node just started draining: the registry should know at once). */
  beatNow(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loopDone;
  }

  /** Closes the connection (after deregister: nothing runs in it any more). */
  disconnect(): void {
    this.connection?.close();
    this.connection = undefined;
    this.connected = false;
    for (const client of this.retired.splice(0)) client.close();
  }

  /** Tells the registry this node is leaving. Best effort: a node that cannot say so expires anyway. */
  async deregister(): Promise<void> {
    if (!this.nodeId) return;
    try {
      await this.options.registry.deregister(this.nodeId, { timeoutMs: 5_000 });
      this.options.logger.info({ nodeId: this.nodeId }, 'deregistered');
    } catch (error) {
      this.options.logger.warn(
        { err: error, nodeId: this.nodeId },
        'deregister failed; the registry will expire this node',
      );
    }
  }
}
