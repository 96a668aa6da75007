// Before anything starts: is another dev stack running on this directory, did a killed one leave
// processes behind, and is every port free? Each answer is a clear message, not a stack trace.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { waitFor } from '../index.ts';
import { layoutPorts, type DevStackLayout } from './layout.ts';
import { readJson, writeFileAtomic } from './state-files.ts';

export class DevStackError extends Error {
  override name = 'DevStackError';
}

interface RecordedProcess {
  name: string;
  pid: number;
  /** argv joined with NUL, as /proc/<pid>/cmdline shows it: a recycled pid will not match. */
  cmdline: string;
}

interface PidRecord {
  launcherPid: number;
  launcherCmdline: string;
  children: RecordedProcess[];
}

function cmdlineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '');
  } catch {
    return undefined;
  }
}

function isSameProcess(recorded: { pid: number; cmdline: string }): boolean {
  return cmdlineOf(recorded.pid) === recorded.cmdline;
}

/** Refuses to start twice on one directory; stops what a killed launcher left running. */
export async function clearLeftovers(layout: DevStackLayout, say: (line: string) => void): Promise<void> {
  const record = readJson<PidRecord>(layout.pidsJson);
  if (!record) return;
  if (
    record.launcherPid !== process.pid &&
    isSameProcess({ pid: record.launcherPid, cmdline: record.launcherCmdline })
  ) {
    throw new DevStackError(
      `a dev stack is already running from ${layout.dir} (pid ${record.launcherPid}). ` +
        `Stop it first (Ctrl-C in its terminal, or kill ${record.launcherPid}), or use another KINO_DEV_DIR.`,
    );
  }
  const leftovers = record.children.filter((child) => isSameProcess(child));
  if (leftovers.length > 0) {
    say(
      `stopping ${leftovers.length} process(es) left by a dev stack that did not stop cleanly: ` +
        leftovers.map((p) => `${p.name} (pid ${p.pid})`).join(', '),
    );
    for (const p of leftovers) process.kill(p.pid, 'SIGTERM');
    try {
      await waitFor('leftover processes to exit', () => leftovers.every((p) => !isSameProcess(p)), {
        timeoutMs: 10_000,
      });
    } catch {
      for (const p of leftovers.filter((p) => isSameProcess(p))) process.kill(p.pid, 'SIGKILL');
    }
  }
}

export function recordPids(
  layout: DevStackLayout,
  children: { name: string; pid: number | undefined; spawnargs: string[] }[],
): void {
  const record: PidRecord = {
    launcherPid: process.pid,
    launcherCmdline: cmdlineOf(process.pid) ?? '',
    children: children
      .filter((c): c is { name: string; pid: number; spawnargs: string[] } => c.pid !== undefined)
      .map((c) => ({ name: c.name, pid: c.pid, cmdline: c.spawnargs.join('\0') })),
  };
  writeFileAtomic(layout.pidsJson, `${JSON.stringify(record, null, 2)}\n`);
}

function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolveFree(true)));
  });
}

/** Every port the stack will listen on must be free; otherwise name the part and the way out. */
export async function assertPortsFree(layout: DevStackLayout, skip: Set<string> = new Set()): Promise<void> {
  const taken: string[] = [];
  for (const { name, port } of layoutPorts(layout)) {
    if (skip.has(name)) continue;
    if (!(await isPortFree(layout.host, port))) taken.push(`${port} (${name})`);
  }
  if (taken.length > 0) {
    throw new DevStackError(
      `port${taken.length > 1 ? 's' : ''} already in use on ${layout.host}: ${taken.join(', ')}. ` +
        'Is another `kino dev` running? Stop it, or pick other ports with KINO_DEV_PORT_BASE=<n> ' +
        '(the stack uses n+80 for the API, n+333 for S3, n+432 for PostgreSQL, n+10233 for Temporal, ...).',
    );
  }
}
