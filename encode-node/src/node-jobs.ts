// What a node is doing: its running jobs by call kind, its encode slots and demand slot, draining,
// and the nice value of each running encode (raised when a viewer starts waiting for it).
import { ProcessPriority, backgroundNiceness, type Renice } from '@kino/ffmpeg';
import { JobAbandonedError, NodeBusyError } from './errors.ts';

/**
 * The calls a node runs, as slots and metrics count them: every kind of encode (whole, chunk, audio
 * track: src/jobs/) is one `encode`, and takes a slot; so does a transcription (a core busy for a
 * third of the video's length).
 */
export const callKinds = ['probe', 'encode', 'thumbnail', 'storyboard', 'transcribe'] as const;
export type CallKind = (typeof callKinds)[number];

/** The kinds that take a slot. */
const takesSlot = (kind: CallKind) => kind === 'encode' || kind === 'transcribe';

/**
 * What a node is doing: running jobs by id, how many encode slots are taken, whether it is
 * draining, and the nice value of each running encode. Probes, thumbnails and storyboards are short
 * and take no slot; encodes take one each.
 */
export class NodeJobs {
  private readonly running = new Map<string, CallKind>();
  /** Each running job's abandonment (abandonAll), by running id. */
  private readonly abandons = new Map<string, AbortController>();
  /** Each running encode's ffmpeg nice value and the id its caller gave, by running id. */
  private readonly priorities = new Map<string, { requestedId: string; priority: ProcessPriority }>();
  private encodes = 0;
  /** Whether the demand slot (one beside `slots`, for encodes a viewer waits for) is taken. */
  private demandTaken = false;
  private draining = false;
  private idleWaiters: (() => void)[] = [];
  private sequence = 0;

  readonly slots: number;
  constructor(slots: number) {
    this.slots = slots;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  get encodesRunning(): number {
    return this.encodes;
  }

  /** How many jobs of each kind run now (metrics). */
  runningByKind(): Record<CallKind, number> {
    const counts = Object.fromEntries(callKinds.map((kind) => [kind, 0])) as Record<CallKind, number>;
    for (const kind of this.running.values()) counts[kind]++;
    return counts;
  }

  /**
   * Abandons every running job (their `abandoned` aborts): the registry marked this node gone (it
   * hung past the heartbeat timeout), so their work moved to other nodes and their results must not
   * be written a second time. Each fails as CANCELLED (a warning), not as an internal error, whether
   * the abandonment cuts off ffmpeg or an upload. Answers how many it abandoned now (not those
   * abandoned before and still ending).
   */
  abandonAll(reason: string): number {
    let abandoned = 0;
    for (const abandon of this.abandons.values()) {
      if (abandon.signal.aborted) continue;
      abandon.abort(new JobAbandonedError(reason));
      abandoned++;
    }
    return abandoned;
  }

  /** Ids of every running job, for heartbeats. */
  activeJobIds(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Takes a place for a job, or throws NodeBusyError; returns the function that gives it back. An
   * encode someone waits for (`onDemand`) takes the demand slot when every slot is busy.
   */
  start(
    kind: CallKind,
    requestedId: string,
    { onDemand = false }: { onDemand?: boolean } = {},
  ): { jobId: string; finish: () => void; abandoned: AbortSignal } {
    if (this.draining) throw new NodeBusyError('node is draining: it takes no new jobs');
    const inDemandSlot = kind === 'encode' && this.encodes >= this.slots && onDemand && !this.demandTaken;
    if (takesSlot(kind) && this.encodes >= this.slots && !inDemandSlot) {
      throw new NodeBusyError(`all ${this.slots} encode slots of this node are busy`);
    }
    // Ids are the caller's, made unique here so two calls with one id cannot collide.
    let jobId = requestedId || `${kind}-${++this.sequence}`;
    if (this.running.has(jobId)) jobId = `${jobId}#${++this.sequence}`;
    this.running.set(jobId, kind);
    const abandon = new AbortController();
    this.abandons.set(jobId, abandon);
    if (inDemandSlot) this.demandTaken = true;
    else if (takesSlot(kind)) this.encodes++;
    let finished = false;
    return {
      jobId,
      abandoned: abandon.signal,
      finish: () => {
        if (finished) return;
        finished = true;
        this.running.delete(jobId);
        this.abandons.delete(jobId);
        if (inDemandSlot) this.demandTaken = false;
        else if (takesSlot(kind)) this.encodes--;
        if (this.running.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      },
    };
  }

  /**
   * Takes a place for an encode (as `start`) with the nice value its ffmpeg runs at: 0 when someone
   * waits for it (`onDemand`), `backgroundNiceness` otherwise, until `raise` finds it.
   */
  startEncode(
    requestedId: string,
    { onDemand = false }: { onDemand?: boolean } = {},
  ): { jobId: string; finish: () => void; priority: ProcessPriority; abandoned: AbortSignal } {
    const job = this.start('encode', requestedId, { onDemand });
    const priority = new ProcessPriority(onDemand ? 0 : backgroundNiceness);
    this.priorities.set(job.jobId, { requestedId, priority });
    return {
      jobId: job.jobId,
      priority,
      abandoned: job.abandoned,
      finish: () => {
        this.priorities.delete(job.jobId);
        job.finish();
      },
    };
  }

  /**
   * Someone now waits for the encodes of job `requestedId` (one, or more when an earlier call with
   * the same id still runs: see `start`): their ffmpeg runs at nice 0 from now on. Undefined when
   * no encode of that job runs here.
   */
  raise(requestedId: string): Renice | undefined {
    // A call without an id got one of the node's own (`start`): nobody can name it to raise it.
    const raised = requestedId
      ? [...this.priorities.values()].filter((encode) => encode.requestedId === requestedId)
      : [];
    if (raised.length === 0) return undefined;
    const results = raised.map(({ priority }) => priority.raise());
    return { threads: results.reduce((sum, r) => sum + r.threads, 0), refused: results.some((r) => r.refused) };
  }

  /** Stops taking jobs; resolves once every running job has finished. */
  drain(): Promise<void> {
    this.draining = true;
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
