// A whole farm for a test file, started by the dev stack's own launcher (`kino dev` runs the same
// code): in a throwaway directory, on a free port base, with the parts and settings the test asks
// for. A part that does not come up fails the start, with the end of its log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevStackLauncher, freeDevPortBase, type DevStackOptions, type DevStackStatus } from '@kino/dev/stack';
import { parseConfig, storageConfigShape, type StorageConfig } from '@kino/infra';

export interface TestStack {
  launcher: DevStackLauncher;
  status: DevStackStatus;
  /** The state directory (logs in `logs/`); removed by stop() unless KINO_FARM_LOGS is set. */
  dir: string;
  /** The environment the farm's processes share (DATABASE_URL, TEMPORAL_ADDRESS, S3_*, NODE_TOKEN, ...). */
  env: Record<string, string>;
  storage: StorageConfig;
  stop(): Promise<void>;
}

/**
 * Test stacks publish videos whole (JUST_IN_TIME=false) unless a test asks for just in time: most
 * tests check a complete ladder the moment a video is `ready`. The just-in-time tests turn it on,
 * and the dev stack's own test runs with the farm's default (on), as `npm run dev` does.
 */
const testOrchestratorDefaults = { JUST_IN_TIME: 'false' };

export async function startTestStack({
  ingest = false,
  speech = false,
  ...options
}: Omit<DevStackOptions, 'dir' | 'portBase'> & {
  /** Also `kino ingest` (live streams): off unless asked, a process fewer for the files that publish nothing. */
  ingest?: boolean;
  /** The nodes' speech engine: off unless asked, so the nodes of files that caption nothing load no model. */
  speech?: boolean;
}): Promise<TestStack> {
  const dir = mkdtempSync(join(tmpdir(), 'kino-test-'));
  const errors: string[] = [];
  const env = { ...options.env, orchestrator: { ...testOrchestratorDefaults, ...options.env?.orchestrator } };
  const without = [
    ...(options.without ?? []),
    ...(ingest ? [] : (['ingest'] as const)),
    ...(speech ? [] : (['speech'] as const)),
  ];
  const launcher = new DevStackLauncher(
    { durable: false, ...options, without, env, dir, portBase: await freeDevPortBase() },
    { progress: () => undefined, partError: (line) => errors.push(line) },
  );
  const stop = async () => {
    await launcher.stop();
    // KINO_FARM_LOGS=1 keeps the directory (every process's log is in logs/) for a look after the run.
    if (process.env.KINO_FARM_LOGS) process.stderr.write(`test stack kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  };
  let status: DevStackStatus;
  try {
    status = await launcher.start();
    const failures = [...status.problems, ...status.missing];
    if (failures.length > 0)
      throw new Error(`the test stack did not come up: ${failures.join('; ')}\n${errors.slice(-20).join('\n')}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { launcher, status, dir, env: status.env, storage: parseConfig(storageConfigShape, status.env), stop };
}
