// The Temporal server as production runs it: the server binary (not the dev server) with PostgreSQL
// persistence, built from the Temporal server's Go module by dev/setup/temporal-server.sh (run
// here, idempotently: only a stack that asks for this server builds it). Its schema is applied with
// the module's own temporal-sql-tool to two databases of the given PostgreSQL server (`temporal`,
// `temporal_visibility`), then the `default` namespace is registered, as an operator would.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { repoRoot } from '@kino/infra';
import { findBinary } from '../binaries.ts';
import { freePort } from '../ports.ts';
import { startProcess } from '../managed-process.ts';
import { stopOnFailure, waitFor, WaitAbortedError } from '../wait.ts';
import type { TemporalServer } from './temporal.ts';

const execFileAsync = promisify(execFile);

/** Builds the server if it is not there yet; returns its directory (bin/, schema/). */
export async function ensureTemporalServerBuilt(): Promise<string> {
  const { stdout } = await execFileAsync('bash', [join(repoRoot, 'dev', 'setup', 'temporal-server.sh')], {
    maxBuffer: 1 << 20,
    timeout: 30 * 60_000,
  });
  return stdout.trim();
}

export async function startTemporalServer({
  dir,
  port,
  host = '127.0.0.1',
  runIn,
  postgresUrl,
  logFile,
}: {
  /** Where its configuration goes. */
  dir: string;
  /** The frontend's gRPC port (what clients dial). */
  port: number;
  host?: string;
  runIn?: string[];
  /** The PostgreSQL server it keeps its state in (a `postgres://user@host:port/...` URL). */
  postgresUrl: string;
  logFile?: string;
}): Promise<TemporalServer> {
  const serverDir = await ensureTemporalServerBuilt();
  const database = new URL(postgresUrl);
  const databases = { temporal: 'temporal', visibility: 'temporal_visibility' } as const;
  await createSchema(serverDir, database, databases.temporal, 'temporal');
  await createSchema(serverDir, database, databases.visibility, 'visibility');

  const ports = await Promise.all(Array.from({ length: 8 }, () => freePort()));
  const [history, matching, worker, frontendHttp] = ports as [number, number, number, number];
  const membership = ports.slice(4) as [number, number, number, number];
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(join(dir, 'config', 'dynamicconfig.yaml'), '{}\n');
  const datastore = (name: string) => `
      sql:
        pluginName: postgres12
        databaseName: ${name}
        connectAddr: "${database.hostname}:${database.port}"
        connectProtocol: tcp
        user: ${decodeURIComponent(database.username)}
        password: "${decodeURIComponent(database.password)}"
        maxConns: 20
        maxIdleConns: 20
        maxConnLifetime: 1h`;
  const service = (grpcPort: number, membershipPort: number, extra = '') => `
    rpc:
      grpcPort: ${grpcPort}
      membershipPort: ${membershipPort}
      bindOnIP: ${host}${extra}`;
  writeFileSync(
    join(dir, 'config', 'temporal-server.yaml'),
    `# Written by dev/src/services/temporal-server.ts: one process, every service, PostgreSQL persistence.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${datastore(databases.temporal)}
    visibility:${datastore(databases.visibility)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: ${host}
services:
  frontend:${service(port, membership[0], `\n      httpPort: ${frontendHttp}`)}
  history:${service(history, membership[1])}
  matching:${service(matching, membership[2])}
  worker:${service(worker, membership[3])}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: ${host}:${port}
      httpAddress: ${host}:${frontendHttp}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${join(dir, 'config', 'dynamicconfig.yaml')}
  pollInterval: 10s
`,
  );
  const server = startProcess(
    'temporal-server',
    join(serverDir, 'bin', 'temporal-server'),
    ['--config-file', join(dir, 'config', 'temporal-server.yaml'), '--allow-no-auth', 'start'],
    { logFile, runIn, cwd: dir },
  );
  const address = `${host}:${port}`;
  const temporal = findBinary('temporal');
  await stopOnFailure(server, () =>
    waitFor(
      'the Temporal server to serve the default namespace',
      async () => {
        if (server.child.exitCode !== null)
          throw new WaitAbortedError(`temporal-server exited (${server.child.exitCode}); see ${logFile}`);
        const describe = ['operator', 'namespace', 'describe', '--namespace', 'default', '--address', address];
        try {
          await execFileAsync(temporal, describe);
        } catch {
          // A fresh cluster has no namespace: register it (a second registration is refused, harmlessly).
          await execFileAsync(temporal, [
            'operator',
            'namespace',
            'create',
            '--namespace',
            'default',
            '--retention',
            '24h',
            '--address',
            address,
          ]).catch(() => undefined);
          await execFileAsync(temporal, describe);
        }
        return true;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    ),
  );
  return { address, process: server, stop: () => server.stop() };
}

/** Creates the database if it is missing and brings its schema to the newest version (both idempotent). */
async function createSchema(
  serverDir: string,
  database: URL,
  name: string,
  schema: 'temporal' | 'visibility',
): Promise<void> {
  const admin = new pg.Client({ connectionString: new URL('/postgres', database).toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const tool = join(serverDir, 'bin', 'temporal-sql-tool');
  const connection = [
    '--plugin',
    'postgres12',
    '--endpoint',
    database.hostname,
    '--port',
    database.port,
    '--user',
    decodeURIComponent(database.username),
    '--password',
    decodeURIComponent(database.password),
    '--database',
    name,
  ];
  const versioned = join(serverDir, 'schema', 'postgresql', 'v12', schema, 'versioned');
  // setup-schema -v 0.0 makes the version table (a no-op once there); update-schema applies what is new.
  await execFileAsync(tool, [...connection, 'setup-schema', '-v', '0.0']).catch(
    (error: Error & { stderr?: string }) => {
      if (!/already exists/i.test(`${error.message} ${error.stderr ?? ''}`)) throw error;
    },
  );
  await execFileAsync(tool, [...connection, 'update-schema', '-d', versioned]);
}
