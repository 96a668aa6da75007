// Real services for integration tests, each on a free loopback port and a throwaway directory.
// Start what a test file needs in `before`, stop it in `after`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StorageConfig } from '@kino/infra';
import {
  freePort,
  startPostgres,
  startSeaweed,
  startTemporal,
  type PostgresServer,
  type SeaweedServer,
  type TemporalServer,
} from '@kino/dev';

export interface TestServices {
  dir: string;
  databaseUrl: string;
  temporalAddress: string;
  storage: StorageConfig;
  stop(): Promise<void>;
}

export async function startTestServices(
  want: { postgres?: boolean; temporal?: boolean; s3?: boolean } = { postgres: true, temporal: true, s3: true },
): Promise<TestServices> {
  const dir = mkdtempSync(join(tmpdir(), 'kino-test-'));
  const started = await Promise.allSettled([
    want.postgres
      ? freePort().then((port) =>
          startPostgres({ dataDir: join(dir, 'pg'), port, logFile: join(dir, 'postgres.log'), durable: false }),
        )
      : undefined,
    want.temporal ? freePort().then((port) => startTemporal({ port, logFile: join(dir, 'temporal.log') })) : undefined,
    want.s3
      ? freePort().then((s3Port) => startSeaweed({ dataDir: join(dir, 's3'), s3Port, logFile: join(dir, 's3.log') }))
      : undefined,
  ]);
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    // Stop what did start, or its processes keep the test process alive.
    await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value?.stop() : undefined)));
    throw failure.reason;
  }
  const [pg, temporal, s3] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined)) as [
    PostgresServer | undefined,
    TemporalServer | undefined,
    SeaweedServer | undefined,
  ];
  return {
    dir,
    databaseUrl: pg?.url ?? '',
    temporalAddress: temporal?.address ?? '',
    storage: s3?.storage ?? ({} as StorageConfig),
    async stop() {
      await Promise.all([pg?.stop(), temporal?.stop(), s3?.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The environment variables a Kino process needs to reach these services. */
export function serviceEnv(services: TestServices): Record<string, string> {
  const env: Record<string, string> = {};
  if (services.databaseUrl) env.DATABASE_URL = services.databaseUrl;
  if (services.temporalAddress) env.TEMPORAL_ADDRESS = services.temporalAddress;
  if (services.storage.S3_ENDPOINT) {
    for (const [name, value] of Object.entries(services.storage)) env[name] = String(value);
  }
  return env;
}
