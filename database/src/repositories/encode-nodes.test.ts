// Registering: what the registry tells a node that registers with an id it had marked gone.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { migrateToLatest, type Db } from '../database.ts';
import { openPgliteDatabase } from '../testing/pglite.ts';
import { deregisterNode, expireDeadNodes, registerNode } from './encode-nodes.ts';

let db: Db;

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
});

afterAll(async () => {
  await db?.destroy();
});

test('registering again with an id marked gone (the node hung, or its first heartbeat back failed) says so; an active one or a new one does not', async () => {
  const registration = { address: '127.0.0.1:5100', slots: 1, version: 'test', labels: {} };
  const first = await registerNode(db, registration);
  assert.equal(first.wasGone, false, 'a new node');
  const again = await registerNode(db, { ...registration, nodeId: first.id });
  assert.equal(again.wasGone, false, 'active until now: its jobs are still its own');

  // Silent past the heartbeat timeout: gone, its work moved to other nodes.
  await db
    .updateTable('encode_nodes')
    .set({ last_heartbeat_at: new Date(0) })
    .where('id', '=', first.id)
    .execute();
  assert.deepEqual(await expireDeadNodes(db, 60_000), [first.id]);
  const back = await registerNode(db, { ...registration, nodeId: first.id });
  assert.equal(back.id, first.id);
  assert.equal(back.state, 'active');
  assert.equal(back.wasGone, true, 'whatever it still runs has moved on');

  await deregisterNode(db, first.id);
  assert.equal((await registerNode(db, { ...registration, nodeId: first.id })).wasGone, true);
});
