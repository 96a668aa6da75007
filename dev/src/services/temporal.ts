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
  host = '127.0.0.1',
  runIn,
}: {
  port: number;
  /** The address it listens on and clients use (default loopback). */
  host?: string;
  /** A command prefix that runs it on another host (startProcess). */
  runIn?: string[];
  dbFile?: string;
  logFile?: string;
}): Promise<TemporalServer> {
  const temporal = findBinary('temporal');
  // The dev server's own services (frontend, matching, history) dial each other on 127.0.0.1 whatever
  // --ip says (seen: matching unreachable with --ip 10.77.x.1), so on another host's address it
  // listens on every interface of that host; on this machine's loopback, on loopback only.
  const bindTo = host === '127.0.0.1' ? host : '0.0.0.0';
  const args = ['server', 'start-dev', '--ip', bindTo, '--port', String(port), '--headless', '--log-level', 'warn'];
  if (dbFile) args.push('--db-filename', dbFile);
  const server = startProcess('temporal', temporal, args, { logFile, runIn });
  const address = `${host}:${port}`;
  await stopOnFailure(server, () =>
    waitFor(
      'Temporal to serve the default namespace',
      async () => {
        if (server.child.exitCode !== null)
          throw new WaitAbortedError(`temporal exited (${server.child.exitCode}); see ${logFile}`);
        await execFileAsync(temporal, [
          'operator',
          'namespace',
          'describe',
          '--namespace',
          'default',
          '--address',
          address,
        ]);
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ),
  );
  return { address, process: server, stop: () => server.stop() };
}
