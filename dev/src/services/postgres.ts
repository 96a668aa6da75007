// A PostgreSQL server on a project-local data directory and port, on loopback or the address given
// (a host of a multi-host test): the dev stack's and the tests' real database. PostgreSQL refuses to run as root, so as root it runs as the `postgres`
// user that Debian's package creates.
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { startProcess, type ManagedProcess } from '../managed-process.ts';
import { stopOnFailure, waitFor, WaitAbortedError } from '../wait.ts';
import { MALLOC_TUNABLES } from '../malloc-tunables.ts';

export interface PostgresServer {
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
  /**
   * kill -9 of the postmaster, as a crash: resolves once its backends have exited too (each does
   * when it sees the postmaster gone). Until then a new server refuses the data directory, whose
   * shared memory they still hold.
   */
  kill9(): Promise<void>;
}

/** The processes a process started (Linux: /proc), read before it dies; empty once they are gone. */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether a process still runs: a zombie (exited, not yet reaped by whoever adopted it) holds nothing. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function postgresBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const dir = join(base, version, 'bin');
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  throw new Error('PostgreSQL is not installed: run `bash dev/setup/setup.sh` (apt package postgresql)');
}

const sameNetLine = 'host all all samenet trust';

function runAsIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export async function startPostgres({
  dataDir,
  port,
  database = 'kino',
  logFile,
  durable = true,
  host = '127.0.0.1',
  runIn,
  login,
}: {
  dataDir: string;
  port: number;
  /** The address it listens on and clients use (default loopback). */
  host?: string;
  /** A command prefix that runs it on another host (startProcess). */
  runIn?: string[];
  database?: string;
  logFile?: string;
  /** false trades crash safety for speed: for throwaway test clusters. */
  durable?: boolean;
  /**
   * A role that owns `database` and must give its password from other hosts (scram-sha-256), as a
   * production server's: the URL carries it. Without it, every client is trusted.
   */
  login?: { user: string; password: string };
}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const ids = runAsIds();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (ids) {
    // The postgres user must be able to reach its data directory.
    for (let dir = dirname(dataDir); dir !== '/' && dir.startsWith('/tmp/'); dir = dirname(dir)) chmodSync(dir, 0o755);
    chownSync(dataDir, ids.uid, ids.gid);
  }
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    execFileSync(
      join(bin, 'initdb'),
      // A throwaway cluster need not wait for its files on disk (initdb's own fsync: seconds on a busy disk).
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=trust',
        '-E',
        'UTF8',
        '--no-instructions',
        ...(durable ? [] : ['--no-sync']),
      ],
      {
        stdio: 'pipe',
        ...ids,
      },
    );
  }
  // initdb lets in loopback only: clients on other hosts of the network come from `samenet`.
  // A login role's line comes first: pg_hba.conf's first matching line decides.
  const hba = join(dataDir, 'pg_hba.conf');
  const loginLine = login ? `host all ${login.user} samenet scram-sha-256` : undefined;
  if (host !== '127.0.0.1' && loginLine && !readFileSync(hba, 'utf8').includes(loginLine))
    appendFileSync(hba, `${loginLine}\n`);
  if (host !== '127.0.0.1' && !readFileSync(hba, 'utf8').includes(sameNetLine)) appendFileSync(hba, `${sameNetLine}\n`);
  const args = ['-D', dataDir, '-p', String(port), '-k', dataDir, '-c', `listen_addresses=${host}`];
  if (!durable) args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const server = startProcess('postgres', join(bin, 'postgres'), args, {
    logFile,
    runIn,
    // Fast shutdown (what `pg_ctl stop` and `pg_ctl restart` do by default): clients are
    // disconnected. SIGTERM's smart shutdown would wait for every pooled connection to close.
    stopSignal: 'SIGINT',
    env: { ...process.env, GLIBC_TUNABLES: MALLOC_TUNABLES },
    ...ids,
  });
  const adminUrl = `postgres://postgres@${host}:${port}/postgres`;
  await stopOnFailure(server, () =>
    waitFor('PostgreSQL to accept connections', async () => {
      if (server.child.exitCode !== null)
        throw new WaitAbortedError(`postgres exited (${server.child.exitCode}); see ${logFile}`);
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        if (login) {
          const { rowCount: roles } = await client.query('select 1 from pg_roles where rolname = $1', [login.user]);
          const password = client.escapeLiteral(login.password);
          await client.query(`${roles ? 'alter' : 'create'} role "${login.user}" login password ${password}`);
        }
        const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
        if (!rowCount) await client.query(`create database "${database}"${login ? ` owner "${login.user}"` : ''}`);
      } finally {
        await client.end();
      }
      return true;
    }),
  );
  return {
    url: login
      ? `postgres://${login.user}:${encodeURIComponent(login.password)}@${host}:${port}/${database}`
      : `postgres://postgres@${host}:${port}/${database}`,
    process: server,
    stop: () => server.stop(),
    async kill9() {
      const backends = server.child.pid === undefined ? [] : childPids(server.child.pid);
      await server.kill9();
      await waitFor("the killed postmaster's backends to exit", () => backends.every((pid) => !isRunning(pid)), {
        timeoutMs: 30_000,
        intervalMs: 50,
      });
    },
  };
}
