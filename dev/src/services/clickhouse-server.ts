// A ClickHouse server (Debian's `clickhouse-server` package) on a throwaway data directory and
// loopback ports, with a config written here: the production-shaped analytics store for tests and
// benchmarks. Only the HTTP interface is used by Kino; the native TCP port is bound to a free port
// because the server insists on having one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClickHouseHttp } from '@kino/analytics';
import { findBinary } from '../binaries.ts';
import { freePort } from '../ports.ts';
import { startProcess, type ManagedProcess } from '../managed-process.ts';
import { waitFor, WaitAbortedError } from '../wait.ts';

export interface ClickHouseServer {
  /** Base URL of the HTTP interface, e.g. http://127.0.0.1:18123 */
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startClickHouse({
  dataDir,
  httpPort,
  logFile,
  host = '127.0.0.1',
  runIn,
  login,
}: {
  dataDir: string;
  httpPort: number;
  logFile?: string;
  /** The address it listens on and clients use (default loopback). */
  host?: string;
  /** A command prefix that runs it on another host (startProcess). */
  runIn?: string[];
  /** A user with a password, let in from any address (the URL carries it); the default user stays on loopback. */
  login?: { user: string; password: string };
}): Promise<ClickHouseServer> {
  const tcpPort = await freePort();
  mkdirSync(join(dataDir, 'data'), { recursive: true });
  const logs = join(dataDir, 'logs');
  mkdirSync(logs, { recursive: true });
  // `<yandex>` is the root element ClickHouse 18.x wants; newer servers still accept it.
  writeFileSync(
    join(dataDir, 'config.xml'),
    `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>${logs}/clickhouse.log</log>
    <errorlog>${logs}/clickhouse.err.log</errorlog>
    <console>0</console>
  </logger>
  <listen_host>${host}</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <path>${dataDir}/data/</path>
  <tmp_path>${dataDir}/tmp/</tmp_path>
  <user_files_path>${dataDir}/user_files/</user_files_path>
  <format_schema_path>${dataDir}/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
</yandex>
`,
  );
  writeFileSync(
    join(dataDir, 'users.xml'),
    `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>${
      login
        ? `
    <${login.user}>
      <password>${login.password}</password>
      <networks><ip>::/0</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
      <access_management>1</access_management>
    </${login.user}>`
        : ''
    }
  </users>
  <quotas><default></default></quotas>
</yandex>
`,
  );
  const server = startProcess('clickhouse', clickHouseBinary(), [`--config-file=${join(dataDir, 'config.xml')}`], {
    logFile,
    cwd: dataDir,
    runIn,
  });
  const credentials = login ? `${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@` : '';
  const url = `http://${credentials}${host}:${httpPort}`;
  const client = new ClickHouseHttp(url);
  await waitFor(
    'ClickHouse to answer /ping',
    async () => {
      if (server.child.exitCode !== null) {
        throw new WaitAbortedError(
          `clickhouse-server exited (${server.child.exitCode}); see ${logs}/clickhouse.err.log`,
        );
      }
      await client.ping();
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  return { url, process: server, stop: () => server.stop() };
}

function clickHouseBinary(): string {
  try {
    return findBinary('clickhouse-server');
  } catch {
    // Debian installs it in /usr/sbin, which is not on every user's PATH.
    return '/usr/sbin/clickhouse-server';
  }
}
