// The lives of encode node processes as the registry sees them: SIGTERM drains (the running encode
// finishes, the node deregisters, exits 0), SIGKILL makes a node disappear from selection once its
// heartbeats stop, and a node registers again when the registry forgets it or restarts.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Storage, createLogger, newId } from '@kino/infra';
import { waitFor } from '@kino/dev';
import { GrpcStatus, createEncodeClient, isServiceError, type EncodeProgress__Output } from '@kino/proto';
import { hlsOutputFileNames } from '@kino/ffmpeg';
import { contentTypeForHlsFile, objectKeys } from '@kino/proto/contract';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { countDecodedFrames, makeClip } from '@kino/test/support/media';
import { acquireNodeSlot, listEncodeNodes, listLiveNodes } from '@kino/database/repositories';
import { migrateToLatest, openDatabase, type Db } from '@kino/database';
import { startRegistryServer, type RegistryServer } from '@kino/orchestrator';
import { startNodeProcess, type NodeProcess } from './node-process.ts';

const token = 'lifecycle-token';
const heartbeatTimeoutMs = 1_500;
const source = 'uploads/org_l/env_l/upl_l/long.mp4';

let services: TestServices;
let db: Db;
let storage: Storage;
let registry: RegistryServer;
let dir: string;
const nodes: NodeProcess[] = [];

async function startRegistry(port = 0): Promise<RegistryServer> {
  return startRegistryServer({
    db,
    host: '127.0.0.1',
    port,
    token,
    heartbeatTimeoutMs,
    logger: createLogger('registry', 'silent'),
  });
}

async function startNode(slots = 1): Promise<NodeProcess> {
  const node = await startNodeProcess({
    controlPlane: registry.address,
    token,
    slots,
    workDir: join(dir, `jobs-${nodes.length}`),
  });
  nodes.push(node);
  return node;
}

async function nodeRow(nodeId: string) {
  return (await listEncodeNodes(db)).find((n) => n.id === nodeId);
}

beforeAll(async () => {
  services = await startTestServices({ postgres: true, s3: true });
  dir = mkdtempSync(join(services.dir, 'lifecycle-'));
  storage = new Storage(services.storage);
  db = await openDatabase(services.databaseUrl);
  await migrateToLatest(db);
  registry = await startRegistry();
  const clip = await makeClip({ seconds: 13, width: 640, height: 360, fps: 25, path: join(dir, 'long.mp4') });
  await storage.put(source, readFileSync(clip), 'video/mp4');
});

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.process.kill9()));
  await registry?.stop();
  await db?.destroy();
  await services?.stop();
});

describe('encode node lifecycle', () => {
  it('SIGTERM mid-encode: refuses new work, finishes the encode, deregisters, exits 0', async () => {
    const node = await startNode();
    const client = createEncodeClient(node.address, token, node.nodeId);
    try {
      const videoId = newId('vid');
      const outputUrls: Record<string, string> = {};
      for (const name of hlsOutputFileNames(13)) {
        outputUrls[`360p/${name}`] = await storage.presignPut(
          `${objectKeys.renditionDir(videoId, 360)}/${name}`,
          600,
          contentTypeForHlsFile(name),
        );
      }
      const progress: EncodeProgress__Output[] = [];
      const inputUrl = await storage.presignGet(source, 600);
      const encode = client.encode(
        {
          jobId: newId('job'),
          videoId,
          inputUrl,
          source: await client.probe({ jobId: newId('job'), inputUrl }),
          whole: {
            outputUrls,
            renditions: [
              {
                key: '360p',
                width: 640,
                height: 360,
                videoBitrateKbps: 800,
                audioBitrateKbps: 128,
                frameRate: 25,
                pixelFormat: 'yuv420p',
                rateControlMode: 'variableBitrate',
                twoPass: true,
                x264Preset: 'medium',
                audioCodec: 'aac',
                segmentSeconds: 6,
              },
            ],
          },
        },
        { onProgress: (p) => progress.push(p) },
      );
      let finished = false;
      void encode.then(
        () => (finished = true),
        () => (finished = true),
      );
      await waitFor('the encode to be under way', () => progress.length > 0);

      node.process.child.kill('SIGTERM');
      await waitFor(
        'the registry to see the node draining',
        async () => (await nodeRow(node.nodeId))?.state === 'draining',
      );
      assert.equal(finished, false, 'the encode was still running when the node started draining');
      assert.deepEqual(
        await listLiveNodes(db, { heartbeatTimeoutMs }).then((live) => live.map((n) => n.id).includes(node.nodeId)),
        false,
      );
      await assert.rejects(
        client.probe({ jobId: newId('job'), inputUrl: await storage.presignGet(source, 600) }),
        (error: unknown) =>
          isServiceError(error) && error.code === GrpcStatus.RESOURCE_EXHAUSTED && /draining/.test(error.details),
      );

      const done = await encode;
      assert.equal(done.renditions[0]?.frameCount, 325);
      assert.equal(progress.at(-1)?.percent, 100);
      assert.equal(await node.process.exited, 0);
      assert.equal((await nodeRow(node.nodeId))?.state, 'gone');
      // What the drained node uploaded plays in full (decoded from a local copy of the objects).
      const local = mkdtempSync(join(dir, 'drained-'));
      for (const key of await storage.list(`${objectKeys.renditionDir(videoId, 360)}/`)) {
        writeFileSync(join(local, key.slice(key.lastIndexOf('/') + 1)), (await storage.get(key))!);
      }
      assert.equal(await countDecodedFrames(join(local, 'playlist.m3u8')), 325);
    } finally {
      client.close();
    }
  });

  it('SIGKILL: the node drops out of selection once its heartbeats stop, and is marked gone', async () => {
    const node = await startNode(2);
    const others = (await listEncodeNodes(db)).filter((n) => n.id !== node.nodeId).map((n) => n.id);
    const live = await listLiveNodes(db, { heartbeatTimeoutMs });
    assert.ok(live.some((n) => n.id === node.nodeId));
    await node.process.kill9();
    const killedAt = Date.now();
    await waitFor(
      'the killed node to leave selection',
      async () => {
        const nodesNow = await listLiveNodes(db, { heartbeatTimeoutMs });
        return !nodesNow.some((n) => n.id === node.nodeId);
      },
      { timeoutMs: 10_000 },
    );
    assert.ok(Date.now() - killedAt <= heartbeatTimeoutMs + 1_000, 'within about one timeout');
    assert.equal(
      await acquireNodeSlot(db, { videoId: 'vid_k', job: 'after-kill', heartbeatTimeoutMs, excludeNodeIds: others }),
      undefined,
    );
    await waitFor('the registry sweep to mark it gone', async () => (await nodeRow(node.nodeId))?.state === 'gone', {
      timeoutMs: 10_000,
    });
  });

  it('registers again, keeping its id, when the registry forgets it or restarts', async () => {
    const node = await startNode();
    // Forgotten: e.g. the orchestrator marked it lost after a failed call.
    await db.updateTable('encode_nodes').set({ state: 'gone' }).where('id', '=', node.nodeId).execute();
    await waitFor('the node to register again', async () => (await nodeRow(node.nodeId))?.state === 'active');
    assert.match(node.logs(), /registering again/);

    // Unreachable: the registry goes away for longer than the heartbeat timeout, then comes back on its port.
    const port = registry.port;
    await registry.stop();
    const stoppedAt = new Date();
    // Its connection ends with the registry (or, were it cut without a word, its next heartbeat fails).
    await waitFor('the node to notice', () => /connection to the registry ended|heartbeat failed/.test(node.logs()), {
      timeoutMs: 10_000,
    });
    registry = await startRegistry(port);
    await waitFor(
      'the node back, active, same id',
      async () => {
        const row = await nodeRow(node.nodeId);
        return row?.state === 'active' && row.last_heartbeat_at > stoppedAt;
      },
      { timeoutMs: 10_000 },
    );
    assert.ok((await listLiveNodes(db, { heartbeatTimeoutMs })).some((n) => n.id === node.nodeId));
    await node.process.stop();
    assert.equal(await node.process.exited, 0);
  });
});
