// A child process the dev stack or a test owns: output to a log file, stopped with SIGTERM and,
// if it lingers, SIGKILL. `runIn` runs it on another "host" of the machine, e.g.
// ['ip', 'netns', 'exec', 'kino-h1'] (a network namespace): the prefix execs the command in place,
// so the child's pid, signals and exit are the command's own.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) when the process ends, however it ends. */
  readonly exited: Promise<number | string>;
  stop(graceMs?: number): Promise<void>;
  kill9(): Promise<void>;
  /** SIGSTOP: the process hangs (its connections stay open, it answers nothing). */
  pause(): void;
  /** SIGCONT after pause. */
  resume(): void;
}

export function startProcess(
  name: string,
  command: string,
  args: string[],
  {
    logFile,
    stopSignal = 'SIGTERM',
    runIn = [],
    ...options
  }: SpawnOptions & { logFile?: string; stopSignal?: NodeJS.Signals; runIn?: string[] } = {},
): ManagedProcess {
  const child =
    runIn.length === 0
      ? spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawnIn(runIn, command, args, options);
  if (logFile) {
    mkdirSync(dirname(logFile), { recursive: true });
    const log = createWriteStream(logFile, { flags: 'a' });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  } else {
    child.stdout?.resume();
    child.stderr?.resume();
  }
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    child.once('error', (error) => resolve(`spawn error: ${error.message}`));
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    child,
    exited,
    async stop(graceMs = 10_000) {
      if (!alive()) return;
      child.kill(stopSignal);
      const timer = setTimeout(() => alive() && child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    async kill9() {
      if (!alive()) return;
      child.kill('SIGKILL');
      await exited;
    },
    pause() {
      if (alive()) child.kill('SIGSTOP');
    },
    resume() {
      if (alive()) child.kill('SIGCONT');
    },
  };
}

/**
 * The prefix needs root (entering a namespace), so a process meant to run as another user (uid,
 * gid: PostgreSQL as `postgres`) drops to it after the prefix, with setpriv.
 */
function spawnIn(
  runIn: string[],
  command: string,
  args: string[],
  { uid, gid, ...options }: SpawnOptions,
): ChildProcess {
  const dropPrivileges =
    uid === undefined ? [] : ['setpriv', `--reuid=${uid}`, `--regid=${gid ?? uid}`, '--clear-groups'];
  const [prefix, ...prefixArgs] = runIn;
  return spawn(prefix!, [...prefixArgs, ...dropPrivileges, command, ...args], {
    ...options,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
