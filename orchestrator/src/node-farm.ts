// The orchestrator's view of the encode farm: is a node there, wait in the encode queue for a slot,
// give it back, stop using a node that failed mid-call, and a client to call a node. Activities
// depend on this interface so their tests can hand in fakes; `createNodeFarm` is the real one, over
// the encode-nodes, node-leases and encode-queue repositories.
//
// The queue (docs/architecture.md#encode-scheduling): an encode enqueues itself and waits; one
// dispatcher per orchestrator process runs a dispatch pass whenever the farm changes (a PostgreSQL
// notification: a lease given back, a node registered or dropped, a grant made elsewhere), and every
// `pollMs` while it has waiters, as a safety net. Leases this process holds are checked on the same
// wake-ups: one the registry dropped (its node expired, was lost or left) aborts its encode at once,
// as a node watched for a short job (watchNode) that the registry stops counting on aborts that job;
// and one a viewer raised while it runs (raiseSegmentPriority) tells its encode to raise the node's
// ffmpeg.
import { createEncodeClient, type EncodeClient } from '@kino/proto';
import type { Logger } from '@kino/infra';
import type { Db } from '@kino/database';
import {
  findLiveNode,
  findGoneNodes,
  listLiveNodes,
  markNodeLost,
  leasesStillHeld,
  releaseJobLeases,
  releaseNodeSlot,
  dispatchEncodeQueue,
  enqueueEncode,
  raiseSegmentPriority,
  leaveEncodeQueue,
  takeGrantedLeases,
  touchQueueEntries,
  listenForFarmChanges,
  type EnqueueRequest,
  type FarmListener,
} from '@kino/database/repositories';

export interface FarmNode {
  nodeId: string;
  /** HOST:PORT of the relay of the orchestrator holding the node's connection: its calls go there. */
  address: string;
}

export interface NodeLease extends FarmNode {
  leaseId: string;
  /** Aborted when the registry drops the lease: its node expired, was marked lost or left. */
  dropped: AbortSignal;
  /** Someone waits for this encode (its entry had priority): the node runs it ahead of the rest. */
  urgent: boolean;
  /**
   * Aborted when someone starts waiting for this encode while it runs (a viewer asked for one of
   * its segments): the node should run it as it runs urgent work from then on. Never aborted for
   * a lease `urgent` already.
   */
  raised: AbortSignal;
}

/** A node watched for a job that holds no slot (NodeFarm.watchNode). */
interface NodeWatch {
  gone: AbortSignal;
  stop(): void;
}

export interface AcquireRequest {
  videoId: string;
  /**
   * The id the node is given, one per activity (not per attempt): queue rows and leases still held
   * under it belong to earlier attempts whose worker died (Temporal starts an attempt only once the
   * previous one is over), so they are dropped first.
   */
  job: string;
  /** Leaves the queue (the activity was cancelled). */
  signal: AbortSignal;
  /** Gives up after waiting this long: undefined comes back. */
  maxWaitMs: number;
  /** Where the entry goes in the queue (just-in-time runs: priority, playback order, the segments it makes) and what it needs of its node. */
  placement?: QueuePlacement;
}

/** An encode's place in the queue (repositories/encode-queue.ts EnqueueRequest). */
export type QueuePlacement = Pick<EnqueueRequest, 'priority' | 'rank' | 'ahead' | 'segments' | 'needs'>;

export interface NodeFarm {
  /** True when some live node is there, with a free encode slot when `freeSlot`. */
  hasLiveNode(options: { freeSlot: boolean }): Promise<boolean>;
  /** How many nodes are live now. */
  liveNodeCount(): Promise<number>;
  /**
   * Waits in the encode queue for one slot on a live node for `job`; undefined after `maxWaitMs`.
   * Rejects with the signal's reason when it aborts.
   */
  acquire(request: AcquireRequest): Promise<NodeLease | undefined>;
  release(lease: NodeLease): Promise<void>;
  /**
   * Someone waits for this segment of a just-in-time video now: the runs that make it, queued or
   * running, become urgent (a queued entry priority 1, a running one reniced by the orchestrator
   * holding its lease). Without read-ahead: the next segment's run keeps its place.
   */
  raiseSegment(request: { videoId: string; rendition: string; segment: number }): Promise<void>;
  /** A live node for a short job that takes no slot (probe, thumbnail, storyboard), least loaded first. */
  pickNode(): Promise<FarmNode | undefined>;
  /**
   * Watches the node of a job that holds no slot (probe, thumbnail, storyboard): `gone` aborts when
   * the registry stops counting on the node (its sweep expired it, it was marked lost, it left), as
   * a lease's `dropped` does for an encode, on the same rule. stop() when the job is over.
   */
  watchNode(nodeId: string): NodeWatch;
  /** Gives no more work to a node that vanished mid-call and frees its slots. A live node re-registers on its next heartbeat. */
  markLost(nodeId: string): Promise<void>;
  /** A client of the node, through the relay holding its connection (registry/relay.ts). */
  client(node: FarmNode): EncodeClient;
  /** Stops listening and closes the node channels (at shutdown). */
  close(): Promise<void>;
}

export interface NodeFarmOptions {
  db: Db;
  /** A postgres:// URL: the dispatcher LISTENs for farm changes. Without it (PGlite), it polls only. */
  databaseUrl?: string;
  /**
   * The shared farm token, presented on each call to a node on a farm without TLS. Unset with TLS: a
   * node with its own credential takes what comes through its connection to the registry.
   */
  nodeToken?: string | undefined;
  heartbeatTimeoutMs: number;
  logger?: Logger;
  /** How often the dispatcher looks again while it has waiters or leases without a notification. */
  pollMs?: number;
}

interface Waiter {
  resolve(lease: NodeLease): void;
}

/** A lease this process holds, as the dispatcher watches it. */
interface HeldLease {
  dropped: AbortController;
  /** Aborted once, when the registry says the lease is raised; undefined once it was (or for an urgent lease). */
  raised: AbortController | undefined;
}

/** A waiter touches its row this often; rows untouched for `staleAfterMs` belong to dead waiters. */
const touchEveryMs = 5_000;
const staleAfterMs = 30_000;

/** The real farm also says how many of this process's encodes wait in the queue and hold a slot (metrics). */
export interface CountedNodeFarm extends NodeFarm {
  encodes(): { queued: number; running: number };
}

/**
 * The farm's PostgreSQL notifications (a lease given back, a node registered or dropped, a grant made
 * elsewhere), listened for from the first call of `listen` on. Without a postgres:// URL (PGlite), or
 * while the listener is down, the dispatcher polls only.
 */
function farmNotifications(databaseUrl: string | undefined, logger: Logger | undefined) {
  let listener: Promise<FarmListener | undefined> | undefined;
  return {
    listen(onChange: () => void): void {
      if (listener || !databaseUrl?.startsWith('postgres')) return;
      listener = listenForFarmChanges(databaseUrl, {
        onChange,
        onError: (error) =>
          logger?.warn({ err: error }, 'encode queue: farm notifications interrupted (polling meanwhile)'),
      }).catch((error: unknown) => {
        logger?.warn({ err: error }, 'encode queue: cannot listen for farm notifications (polling instead)');
        listener = undefined;
        return undefined;
      });
    },
    async close(): Promise<void> {
      await (await listener)?.close();
    },
  };
}

/**
 * The dispatcher of one orchestrator process: runs dispatch passes (one at a time; a wake-up during a
 * pass runs one more after it) that hand granted slots to this process's waiters and check the
 * leases it holds, on every farm notification (once `listen` was called) and every `pollMs` while
 * it has waiters or leases.
 */
function createDispatcher({
  db,
  databaseUrl,
  heartbeatTimeoutMs,
  logger,
  pollMs,
}: Omit<NodeFarmOptions, 'nodeToken' | 'pollMs'> & { pollMs: number }) {
  const waiters = new Map<string, Waiter>();
  const held = new Map<string, HeldLease>();
  /** The nodes of short jobs this process runs, each job's watch with its node's id. */
  const watched = new Map<AbortController, string>();
  const notifications = farmNotifications(databaseUrl, logger);
  let lastTouchAt = 0;

  // One pass at a time; a wake-up during a pass runs one more pass after it.
  let passing: Promise<void> | undefined;
  let again = false;
  const wake = (): void => {
    if (passing) {
      again = true;
      return;
    }
    passing = pass()
      .catch((error: unknown) => logger?.error({ err: error }, 'encode queue: dispatch pass failed'))
      .finally(() => {
        passing = undefined;
        if (again) {
          again = false;
          wake();
        }
      });
  };

  async function pass(): Promise<void> {
    if (waiters.size > 0) await grantWaiters();
    if (held.size > 0) await checkHeldLeases();
    if (watched.size > 0) await checkWatchedNodes();
  }

  async function grantWaiters(): Promise<void> {
    const ids = [...waiters.keys()];
    if (Date.now() - lastTouchAt >= touchEveryMs) {
      lastTouchAt = Date.now();
      await touchQueueEntries(db, ids);
    }
    await dispatchEncodeQueue(db, { heartbeatTimeoutMs, staleMs: staleAfterMs });
    for (const grant of await takeGrantedLeases(db, ids)) {
      const waiter = waiters.get(grant.entryId);
      if (!waiter) {
        // Gave up while the grant was on its way: hand the slot on.
        await releaseNodeSlot(db, grant.leaseId);
        continue;
      }
      waiters.delete(grant.entryId);
      const dropped = new AbortController();
      const raised = new AbortController();
      // An urgent lease runs as urgent work already: nothing to raise.
      held.set(grant.leaseId, { dropped, raised: grant.urgent ? undefined : raised });
      waiter.resolve({
        leaseId: grant.leaseId,
        nodeId: grant.nodeId,
        address: grant.address,
        dropped: dropped.signal,
        urgent: grant.urgent,
        raised: raised.signal,
      });
    }
  }

  async function checkHeldLeases(): Promise<void> {
    const still = await leasesStillHeld(db, [...held.keys()]);
    for (const [leaseId, lease] of held) {
      const now = still.get(leaseId);
      if (!now) {
        held.delete(leaseId);
        lease.dropped.abort(new Error('the registry dropped the node (no heartbeat, lost or left)'));
      } else if (now.raised && lease.raised) {
        lease.raised.abort(new Error('a viewer waits for this encode'));
        lease.raised = undefined;
      }
    }
  }

  async function checkWatchedNodes(): Promise<void> {
    const gone = await findGoneNodes(db, [...new Set(watched.values())]);
    for (const [watch, nodeId] of watched) {
      if (!gone.has(nodeId)) continue;
      watched.delete(watch);
      watch.abort(new Error('the registry dropped the node (no heartbeat, lost or left)'));
    }
  }

  const poll = setInterval(() => {
    if (waiters.size > 0 || held.size > 0 || watched.size > 0) wake();
  }, pollMs);
  poll.unref();

  const listen = (): void => notifications.listen(wake);

  async function close(): Promise<void> {
    clearInterval(poll);
    await notifications.close();
  }

  /** A node watched for a short job: `gone` aborts on the pass that finds it gone. */
  function watch(nodeId: string): NodeWatch {
    const watcher = new AbortController();
    watched.set(watcher, nodeId);
    return {
      gone: watcher.signal,
      stop: () => {
        watched.delete(watcher);
      },
    };
  }

  return { waiters, held, watch, wake, listen, close };
}

export function createNodeFarm({
  db,
  databaseUrl,
  nodeToken,
  heartbeatTimeoutMs,
  logger,
  pollMs = 1_000,
}: NodeFarmOptions): CountedNodeFarm {
  const clients = new Map<string, EncodeClient>();
  const { waiters, held, watch, wake, listen, ...dispatcher } = createDispatcher({
    db,
    heartbeatTimeoutMs,
    pollMs,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(logger ? { logger } : {}),
  });

  return {
    encodes: () => ({ queued: waiters.size, running: held.size }),

    async hasLiveNode({ freeSlot }) {
      const nodes = await listLiveNodes(db, { heartbeatTimeoutMs });
      return nodes.some((node) => !freeSlot || node.used < node.slots);
    },

    async liveNodeCount() {
      return (await listLiveNodes(db, { heartbeatTimeoutMs })).length;
    },

    async acquire({ videoId, job, signal, maxWaitMs, placement }) {
      signal.throwIfAborted();
      listen();
      await releaseJobLeases(db, job);
      const entryId = await enqueueEncode(db, { videoId, job, ...placement });
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      try {
        return await new Promise<NodeLease | undefined>((resolve, reject) => {
          waiters.set(entryId, { resolve });
          timer = setTimeout(() => resolve(undefined), maxWaitMs);
          onAbort = () => reject(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
          wake();
        });
      } finally {
        clearTimeout(timer);
        if (onAbort) signal.removeEventListener('abort', onAbort);
        if (waiters.delete(entryId)) {
          // Gave up or cancelled: out of the queue, and a slot granted meanwhile goes back.
          await leaveEncodeQueue(db, entryId).catch((error: unknown) =>
            logger?.error({ err: error }, 'could not leave the encode queue'),
          );
        }
      }
    },

    async release(lease) {
      held.delete(lease.leaseId);
      await releaseNodeSlot(db, lease.leaseId);
    },

    async raiseSegment(request) {
      await raiseSegmentPriority(db, { ...request, readAhead: false });
    },

    async pickNode() {
      const node = await findLiveNode(db, { heartbeatTimeoutMs });
      return node && { nodeId: node.id, address: node.address };
    },

    watchNode(nodeId) {
      listen();
      return watch(nodeId);
    },

    async markLost(nodeId) {
      await markNodeLost(db, nodeId);
    },

    client({ nodeId, address }) {
      // One channel per node and relay, kept: a node that connects to another orchestrator gets another.
      const key = `${nodeId}@${address}`;
      let client = clients.get(key);
      if (!client) {
        client = createEncodeClient(address, nodeToken, nodeId);
        clients.set(key, client);
      }
      return client;
    },

    async close() {
      await dispatcher.close();
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
