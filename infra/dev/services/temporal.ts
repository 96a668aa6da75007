// The Temporal dev server (`temporal server start-dev`): the real Temporal server, state in one
// SQLite file (or memory when no file is given).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { findBinary } from '../binaries.ts';
import { startProcess, type ManagedProcess } from '../managed-process.ts';
import { stopOnFailure, waitFor, WaitAbortedError } from '../wait.ts';

const execFileAsync = promisify(execFile);

export interface TemporalServer {
  address: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startTemporal({
  port,
  dbFile,
  logFile,
}: {
  port: number;
  dbFile?: string;
  logFile?: string;
}): Promise<TemporalServer> {
  const temporal = findBinary('temporal');
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'warn'];
  if (dbFile) args.push('--db-filename', dbFile);
  const server = startProcess('temporal', temporal, args, { logFile });
  const address = `127.0.0.1:${port}`;
  await stopOnFailure(server, () => waitFor(
    'Temporal to serve the default namespace',
    async () => {
      if (server.child.exitCode !== null) throw new WaitAbortedError(`temporal exited (${server.child.exitCode}); see ${logFile}`);
      await execFileAsync(temporal, ['operator', 'namespace', 'describe', '--namespace', 'default', '--address', address]);
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  ));
  return { address, process: server, stop: () => server.stop() };
}
