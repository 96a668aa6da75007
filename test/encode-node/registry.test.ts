// The NodeRegistry against real PostgreSQL: the table logic (the same cases PGlite runs), slot
// acquisition from concurrent connections, and the gRPC surface nodes talk to.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createLogger } from '@kino/infra';
import { waitFor } from '@kino/dev';
import { GrpcStatus, createRegistryClient, isServiceError, type NodeConnection } from '@kino/proto';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { acquireNodeSlot, listEncodeNodes, registerNode } from '@kino/database/repositories';
import { migrateToLatest, openDatabase, type Db } from '@kino/database';
import { startRegistryServer, type RegistryServer } from '@kino/orchestrator';
import { registryTableCases } from './registry-table-cases.ts';

let services: TestServices;
let db: Db;

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  db = await openDatabase(services.databaseUrl);
  await migrateToLatest(db);
});

afterAll(async () => {
  await db?.destroy();
  await services?.stop();
});

describe('registry tables on PostgreSQL', () => {
  registryTableCases(() => db);

  it('acquisitions from separate connections pools never overbook (row locks, not process memory)', async () => {
    await db.deleteFrom('node_leases').execute();
    await db.deleteFrom('encode_nodes').execute();
    await registerNode(db, { address: '127.0.0.1:7201', slots: 2, version: 't', labels: {} });
    await registerNode(db, { address: '127.0.0.1:7202', slots: 3, version: 't', labels: {} });
    // Twelve "orchestrators", each with its own pool (and warm connection), racing for 5 slots.
    const others = await Promise.all(Array.from({ length: 12 }, () => openDatabase(services.databaseUrl)));
    try {
      await Promise.all(others.map((other) => sql`select 1`.execute(other)));
      // Many rounds: a race that deadlocks or overbooks now and then must show it here, not in a farm.
      for (let round = 0; round < 30; round++) {
        await db.deleteFrom('node_leases').execute();
        const results = await Promise.all(
          others.map((other, i) =>
            acquireNodeSlot(other, { videoId: 'vid_race', job: `race-${round}-${i}`, heartbeatTimeoutMs: 10_000 }),
          ),
        );
        assert.equal(results.filter(Boolean).length, 5, `round ${round}`);
        const used = await db.selectFrom('node_leases').select(['node_id']).execute();
        const perNode = new Map<string, number>();
        for (const lease of used) perNode.set(lease.node_id, (perNode.get(lease.node_id) ?? 0) + 1);
        for (const node of await listEncodeNodes(db))
          assert.equal(perNode.get(node.id), node.slots, `round ${round}: ${node.address}`);
      }
    } finally {
      await Promise.all(others.map((other) => other.destroy()));
    }
  });
});

describe('NodeRegistry over gRPC', () => {
  let registry: RegistryServer;
  beforeAll(async () => {
    registry = await startRegistryServer({
      db,
      host: '127.0.0.1',
      port: 0,
      token: 'farm-secret',
      heartbeatTimeoutMs: 3_000,
      logger: createLogger('registry', 'silent'),
    });
  });
  afterAll(() => registry?.stop());

  it('refuses a wrong token with UNAUTHENTICATED on every call', async () => {
    const client = createRegistryClient(registry.address, 'not-the-token');
    try {
      for (const call of [
        () => client.connect({ nodeId: '', slots: 1, version: 't', labels: {} }),
        () => client.heartbeat({ nodeId: 'node_x', activeJobs: [], draining: false }),
        () => client.deregister('node_x'),
      ]) {
        await assert.rejects(
          call(),
          (error: unknown) => isServiceError(error) && error.code === GrpcStatus.UNAUTHENTICATED,
        );
      }
    } finally {
      client.close();
    }
  });

  it('registers a node that connects, answers heartbeats (known or not), deregisters', async () => {
    const client = createRegistryClient(registry.address, 'farm-secret');
    const connections: NodeConnection[] = [];
    const connect = async (request: Parameters<typeof client.connect>[0]) => {
      const connection = await client.connect(request);
      connections.push(connection);
      return connection.welcome;
    };
    try {
      const registered = await connect({ nodeId: '', slots: 2, version: '9.9.9', labels: { gpu: 'none' } });
      assert.match(registered.nodeId, /^node_/);
      assert.equal(registered.heartbeatIntervalMs, 1_000, 'a third of the timeout');
      assert.equal(registered.wasGone, false, 'a new node');
      assert.equal(registered.relayAddress, registry.relayAddress, 'called through the relay of this registry');
      const row = (await listEncodeNodes(db)).find((n) => n.id === registered.nodeId);
      assert.deepEqual(
        [row?.address, row?.slots, row?.version, row?.labels, row?.state],
        [registry.relayAddress, 2, '9.9.9', { gpu: 'none' }, 'active'],
      );
      assert.deepEqual(await client.heartbeat({ nodeId: registered.nodeId, activeJobs: [], draining: true }), {
        known: true,
      });
      assert.equal((await listEncodeNodes(db)).find((n) => n.id === registered.nodeId)?.state, 'draining');
      assert.deepEqual(await client.heartbeat({ nodeId: 'node_unknown', activeJobs: [], draining: false }), {
        known: false,
      });
      await client.deregister(registered.nodeId);
      assert.equal((await listEncodeNodes(db)).find((n) => n.id === registered.nodeId)?.state, 'gone');
      assert.deepEqual(await client.heartbeat({ nodeId: registered.nodeId, activeJobs: [], draining: false }), {
        known: false,
      });
      const back = await connect({ nodeId: registered.nodeId, slots: 2, version: '9.9.9', labels: {} });
      assert.deepEqual(
        [back.nodeId, back.wasGone],
        [registered.nodeId, true],
        'registering again with an id marked gone: the answer says so (the node abandons its jobs)',
      );
      await assert.rejects(
        client.connect({ nodeId: '', slots: 0, version: 't', labels: {} }),
        (error: unknown) => isServiceError(error) && error.code === GrpcStatus.INVALID_ARGUMENT,
      );
    } finally {
      for (const connection of connections) connection.close();
      client.close();
    }
  });

  it('marks a node lost the moment its connection ends', async () => {
    const client = createRegistryClient(registry.address, 'farm-secret');
    try {
      const connection = await client.connect({ nodeId: '', slots: 1, version: 't', labels: {} });
      const { nodeId } = connection.welcome;
      assert.equal((await listEncodeNodes(db)).find((n) => n.id === nodeId)?.state, 'active');
      connection.close();
      await waitFor('the node marked gone', async () =>
        (await listEncodeNodes(db)).find((n) => n.id === nodeId)?.state === 'gone' ? true : undefined,
      );
    } finally {
      client.close();
    }
  });
});
