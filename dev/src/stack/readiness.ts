// Readiness checks of the dev stack's parts. A wait ends when the condition holds, when the part
// dies (no point waiting on a dead process), when the stack is being stopped, or at its deadline.
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { openDatabase } from '@kino/database';
import { countActiveNodesSince } from '@kino/database/repositories';
import { findBinary, type ManagedProcess } from '../index.ts';
import { DevStackError } from './preflight.ts';

const execFileAsync = promisify(execFile);

/** Thrown by a check to end the wait at once (the part died). */
export class PartFailed extends DevStackError {
  override name = 'PartFailed';
}

export class StopRequested extends Error {
  override name = 'StopRequested';
}

export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 200, signal }: { timeoutMs: number; intervalMs?: number; signal: AbortSignal },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (signal.aborted) throw new StopRequested(`stopped while waiting for ${what}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof PartFailed) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new DevStackError(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${reason}`);
    }
    await new Promise((resolveSleep) => setTimeout(resolveSleep, intervalMs));
  }
}

/** Throws PartFailed when the process has exited: a check calls this first. */
export function assertRunning(part: ManagedProcess, logFile: string): void {
  const { exitCode, signalCode } = part.child;
  if (exitCode !== null || signalCode !== null) {
    throw new PartFailed(`${part.name} exited (${exitCode ?? signalCode}) while starting; see ${logFile}`);
  }
}

export function acceptsTcp(host: string, port: number): Promise<boolean> {
  return new Promise((resolveConnect) => {
    const socket = connect({ host, port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolveConnect(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolveConnect(false);
    });
    socket.once('error', () => resolveConnect(false));
  });
}

export interface HealthAnswer {
  status: number;
  /** Names of checks that are not ok. */
  failing: string[];
}

function checkIsOk(value: unknown): boolean {
  if (value === 'ok' || value === true) return true;
  if (value && typeof value === 'object') {
    const record = value as { status?: unknown; ok?: unknown };
    return record.status === 'ok' || record.ok === true;
  }
  return false;
}

/** GET /v1/api/health: `{body: {status, version, checks: {...}}}` (docs/decisions/api.md#health). */
export async function readApiHealth(apiUrl: string): Promise<HealthAnswer> {
  const response = await fetch(`${apiUrl}/health`, { signal: AbortSignal.timeout(5000) });
  const payload = (await response.json().catch(() => ({}))) as { body?: { checks?: Record<string, unknown> } };
  const checks = payload.body?.checks ?? {};
  return { status: response.status, failing: Object.keys(checks).filter((name) => !checkIsOk(checks[name])) };
}

/**
 * Whether any worker polls the task queue: the orchestrator's Temporal worker is up. The legacy
 * describe reads the pollers the matching service holds now; the default (enhanced) one answered
 * about 5 s after the worker's first poll, which every start of a stack waited for.
 */
export async function taskQueueHasPollers(temporalAddress: string, taskQueue: string): Promise<boolean> {
  const { stdout } = await execFileAsync(
    findBinary('temporal'),
    [
      'task-queue',
      'describe',
      '--legacy-mode',
      '--task-queue',
      taskQueue,
      '--address',
      temporalAddress,
      '--output',
      'json',
    ],
    { timeout: 10_000 },
  );
  const described = JSON.parse(stdout) as { pollers?: unknown[] | null };
  return (described.pollers?.length ?? 0) > 0;
}

/**
 * How many of these addresses the registry holds as active nodes that registered or heartbeat
 * since `since` (the registry keeps nodes in encode_nodes).
 */
export async function countLiveNodes(databaseUrl: string, addresses: string[], since: Date): Promise<number> {
  const db = await openDatabase(databaseUrl);
  try {
    return await countActiveNodesSince(db, addresses, since);
  } finally {
    await db.destroy();
  }
}
