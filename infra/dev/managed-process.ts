// A child process the dev stack or a test owns: output to a log file, stopped with SIGTERM and,
// if it lingers, SIGKILL.
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
    ...options
  }: SpawnOptions & { logFile?: string; stopSignal?: NodeJS.Signals } = {},
): ManagedProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
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
