// One farm for the test files that only upload and play (vitest.config.mjs lists them in the
// `test-shared-farm` project): started once by vitest's globalSetup (the default export, in vitest's
// own process), with a delivery node, the analytics store and one encode node of two slots, the farm
// each of those files used to start for itself. Its addresses go to the files through vitest's
// provide/inject; each file joins it as a tenant of its own (joinSharedFarm: an organization, an
// environment and a full-access key made for it), so no file sees another's videos, webhooks or
// playback logs.
//
// A file here must not stop, kill, restart or reconfigure a part of the farm: that is what a farm of
// its own (startFarm) is for. A file that breaks the farm anyway fails the run: the next file to join
// finds the part down and says which, and the teardown fails the run when a part exited.
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

/** The parts a file on the shared farm relies on (the services are checked through them). */
const parts = ['postgres', 'temporal', 's3', 'analytics', 'api', 'orchestrator', 'delivery', 'node-a'];

/** vitest's globalSetup: starts the farm, provides its address, and returns the teardown. */
export default async function startSharedFarm(project: TestProject): Promise<() => Promise<void>> {
  const farm = await startFarm({ playback: true });
  try {
    await farm.startNode('a', { slots: 2 });
  } catch (error) {
    await farm.stop();
    throw error;
  }
  const processes = Object.fromEntries(parts.map((name) => [name, farm.launcher.process(name)]));
  const exits: string[] = [];
  for (const [name, child] of Object.entries(processes)) {
    void child.exited.then((code) => exits.push(`${name} (exit ${code})`));
  }
  project.provide('sharedFarm', {
    env: farm.env,
    apiUrl: farm.apiUrl,
    deliveryUrl: farm.deliveryUrl!,
    operatorToken: farm.operatorToken,
    pids: Object.fromEntries(Object.entries(processes).map(([name, child]) => [name, child.child.pid!])),
    dir: farm.services.dir,
  });
  return async () => {
    // Read before stopping: the stop itself ends every part.
    const broken = [...exits];
    await farm.stop();
    if (broken.length > 0) {
      throw new Error(`the shared farm lost ${broken.join(', ')} during the run: a file on it broke it (see which files failed first)`);
    }
  };
}

/**
 * Joins the shared farm as a new tenant. Fails at once, naming the part, when a process of the
 * farm is gone (a file before this one broke it).
 */
export async function joinSharedFarm(name: string): Promise<FarmTenant> {
  const address = inject('sharedFarm');
  const gone = Object.entries(address.pids).filter(([, pid]) => !isRunning(pid)).map(([part]) => part);
  if (gone.length > 0) {
    throw new Error(`the shared farm is broken: ${gone.join(', ')} no longer running (a file before this one broke it; logs in ${address.dir}/logs)`);
  }
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
  return connectTenant({ env: address.env, apiUrl: address.apiUrl, operatorToken: address.operatorToken, deliveryUrl: address.deliveryUrl, tenancy });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
