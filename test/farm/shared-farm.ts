// One farm for the test files that only upload and play (vitest.config.mjs lists them in the
// `test-shared-farm` project): started once by vitest's globalSetup (the default export, in vitest's
// own process), with a delivery node, the analytics store and one encode node of four slots, the farm
// each of those files used to start for itself. Its addresses go to the files through vitest's
// provide/inject; each file joins it as a tenant of its own (joinSharedFarm: an organization, an
// environment and a full-access key made for it), so no file sees another's videos, webhooks or
// playback logs.
//
// A file here must not stop, kill, restart or reconfigure a part of the farm: that is what a farm of
// its own (startFarm) is for. A file that breaks the farm anyway fails the run: the next file to join
// finds the part down and says which, and the teardown fails the run when a part exited.
import { readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { inject } from 'vitest';
import { createApiKey, createEnvironment, createOrganization } from '@kino/database/repositories';
import { openDatabase } from '@kino/database';
import { connectTenant, startFarm, type FarmTenant } from './farm.ts';

/** What the files on the shared farm are given: how to reach it, and its processes to check. */
export interface SharedFarmAddress {
  /** The farm's environment (DATABASE_URL, TEMPORAL_ADDRESS, S3_*, CLICKHOUSE_URL, ...). */
  env: Record<string, string>;
  apiUrl: string;
  deliveryUrl: string;
  operatorToken: string;
  /** Each process of the farm by part name, to tell a file that one of them is gone. */
  pids: Record<string, number>;
  /** Where the farm's logs are. */
  dir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedFarm: SharedFarmAddress;
  }
}

/** The farm's processes the files on it rely on: its services, its Kino processes and its encode node. */
const parts = ['postgres', 'temporal', 's3', 'analytics', 'api', 'orchestrator', 'delivery', 'ingest', 'node-a'];

/** vitest's globalSetup: starts the farm, provides its address, and returns the teardown. */
export default async function startSharedFarm(project: TestProject): Promise<() => Promise<void>> {
  // Captions from speech in pieces of about 8 s (the default is 10 minutes), so the speech test's
  // 21 s video is transcribed in three pieces on the node's slots and joined.
  const farm = await startFarm({
    playback: true,
    ingest: true,
    speech: true,
    orchestratorEnv: { CAPTIONS_PIECE_SECONDS: '8' },
    // Views fold within a second of their end (beacons.test.ts), not the production 10 s, and reach
    // the experience rollups a second later; quiet after 15 s (a player sends every 10 s), not 2 min.
    apiEnv: {
      PLAYBACK_FOLD_INTERVAL_MS: '500',
      PLAYBACK_VIEW_QUIET_SECONDS: '15',
      ANALYTICS_ROLLUP_INTERVAL_MS: '1000',
    },
  });
  try {
    // Four slots: a broadcast holds one for its whole length, and the three live files may run at
    // once (live-recording's two broadcasts, live-ingest's and live's): with two slots a broadcast
    // waited for one while its publisher went on, and its encoder lost the relay ("Input/output
    // error"). The broadcasts are 320x180, so four slots cost the two cores little.
    await farm.startNode('a', { slots: 4 });
  } catch (error) {
    await farm.stop();
    throw error;
  }
  const address: SharedFarmAddress = {
    env: farm.env,
    apiUrl: farm.apiUrl,
    deliveryUrl: farm.deliveryUrl!,
    operatorToken: farm.operatorToken,
    pids: Object.fromEntries(parts.map((name) => [name, farm.launcher.process(name).child.pid!])),
    dir: farm.services.dir,
  };
  project.provide('sharedFarm', address);
  return async () => {
    // Looked at before stopping: the stop ends every part.
    const gone = partsGone(address);
    await farm.stop();
    if (gone.length > 0) {
      throw new Error(
        `the shared farm lost ${gone.join(', ')} during the run: a file on it broke it (the first file that failed says which)`,
      );
    }
  };
}

/**
 * Joins the shared farm as a new tenant. Fails at once, naming the part, when a process of the
 * farm is gone (a file before this one broke it); the tenant's stop() fails the same way.
 */
export async function joinSharedFarm(name: string): Promise<FarmTenant> {
  const address = inject('sharedFarm');
  assertFarmRuns(address, 'a file before this one broke it');
  const db = await openDatabase(address.env.DATABASE_URL!);
  let tenancy: { orgId: string; envId: string; apiKey: string };
  try {
    const org = await createOrganization(db, { name: `shared farm: ${name}` });
    const environment = await createEnvironment(db, { orgId: org.id, name: 'development' });
    const key = await createApiKey(db, { orgId: org.id, type: 'full', live: false });
    tenancy = { orgId: org.id, envId: environment.id, apiKey: key.apiKey };
  } finally {
    await db.destroy();
  }
  const tenant = await connectTenant({
    env: address.env,
    apiUrl: address.apiUrl,
    operatorToken: address.operatorToken,
    deliveryUrl: address.deliveryUrl,
    tenancy,
  });
  return {
    ...tenant,
    // The file that broke the farm fails too, not only the files after it.
    async stop() {
      await tenant.stop();
      assertFarmRuns(address, `it broke while ${name} ran on it`);
    },
  };
}

/** Throws, naming the parts, when a process of the shared farm is gone. */
function assertFarmRuns(address: SharedFarmAddress, why: string): void {
  const gone = partsGone(address);
  if (gone.length > 0) {
    throw new Error(
      `the shared farm is broken: ${gone.join(', ')} no longer running (${why}; logs in ${address.dir}/logs)`,
    );
  }
}

/** The parts whose process has ended: gone, or dead and not yet reaped by vitest's process (a zombie). */
function partsGone(address: SharedFarmAddress): string[] {
  return Object.entries(address.pids)
    .filter(([, pid]) => {
      try {
        // /proc/PID/stat: `pid (command) state ...`; the command may hold spaces and parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
      } catch {
        return true;
      }
    })
    .map(([part]) => part);
}
