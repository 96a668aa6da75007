// The nice value of one job's ffmpeg runs, changeable while they run (docs/decisions/just-in-time.md).
// A node runs encodes nobody waits for at `backgroundNiceness` and urgent ones at 0; a background
// run a viewer starts waiting for is raised to 0 mid-run: every process it started and every thread
// of each, and whatever it starts after.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value of encodes nobody waits for: an encode a viewer waits for (at 0) takes the CPU first on a shared node. */
export const backgroundNiceness = 10;

/** What changing the nice value of running processes came to. */
export interface Renice {
  /** Threads given the new value. */
  threads: number;
  /**
   * The system refused to lower the value (EACCES/EPERM): the process lacks CAP_SYS_NICE and its
   * RLIMIT_NICE is below 20 - value. Raising it (nicer) is always allowed.
   */
  refused: boolean;
}

/** A thread may end while it is reniced: that is not a failure. */
function gone(error: unknown): boolean {
  return systemErrorCode(error) === 'ESRCH';
}

function refusedBySystem(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code === 'EACCES' || code === 'EPERM';
}

/** os.setPriority throws ERR_SYSTEM_ERROR with the errno's name in `info.code`. */
function systemErrorCode(error: unknown): string | undefined {
  const info = (error as { info?: { code?: unknown } } | undefined)?.info;
  return typeof info?.code === 'string' ? info.code : undefined;
}

/**
 * The threads of a process: on Linux a nice value belongs to each thread (setpriority on a pid
 * changes its main thread only), and a thread takes its creator's value when it starts.
 */
function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    // No /proc (macOS), or the process is gone: the process itself.
    return [pid];
  }
}

/** The nice value of each thread of `pid` now (what `raise` changes); empty once it has exited. */
export function threadNiceness(pid: number): number[] {
  return threadsOf(pid).flatMap((tid) => {
    try {
      return [getPriority(tid)];
    } catch (error) {
      if (gone(error)) return [];
      throw error;
    }
  });
}

/**
 * Sets every thread of `pid` to `niceness`. Threads can start meanwhile from a thread not set yet,
 * so the list is read again until it shows none new: a thread started after that was started by
 * one already set, and takes its value.
 */
function reniceProcess(pid: number, niceness: number): Renice {
  const done = new Set<number>();
  for (let pass = 0; pass < 10; pass += 1) {
    const fresh = threadsOf(pid).filter((tid) => !done.has(tid));
    if (fresh.length === 0) break;
    for (const tid of fresh) {
      done.add(tid);
      try {
        setPriority(tid, niceness);
      } catch (error) {
        if (gone(error)) continue;
        if (refusedBySystem(error)) return { threads: done.size - 1, refused: true };
        throw error;
      }
    }
  }
  return { threads: done.size, refused: false };
}

/**
 * The nice value of one job's ffmpeg runs: `runFfmpeg` starts each at the current value and tracks
 * it while it runs (`started`, `ended`); `raise` changes the value of the runs still going and of
 * the next ones.
 */
export class ProcessPriority {
  private readonly running = new Set<number>();

  private value: number;
  constructor(value: number) {
    this.value = value;
  }

  /** The nice value the job's processes run at now. */
  get niceness(): number {
    return this.value;
  }

  /** The pids of the job's processes still running. */
  get pids(): number[] {
    return [...this.running];
  }

  /**
   * A process of the job started: it runs at the current value, and is reniced by `raise` until
   * `ended`. Setting a higher value than the node's own (nicer) is always allowed.
   */
  started(pid: number): Renice {
    this.running.add(pid);
    return reniceProcess(pid, this.value);
  }

  /** The process exited (its pid may be reused from now on). */
  ended(pid: number): void {
    this.running.delete(pid);
  }

  /**
   * Someone waits for the job now: its processes run at `niceness` (0 by default: an urgent
   * encode's) from now on, those running and those it starts later. Never makes them nicer.
   */
  raise(niceness = 0): Renice {
    if (niceness >= this.value) return { threads: 0, refused: false };
    this.value = niceness;
    let threads = 0;
    for (const pid of this.running) {
      const result = reniceProcess(pid, niceness);
      threads += result.threads;
      // Lowering a nice value needs the same right for every thread: no use trying the others.
      if (result.refused) return { threads, refused: true };
    }
    return { threads, refused: false };
  }
}
