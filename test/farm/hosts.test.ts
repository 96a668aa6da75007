// A farm across hosts: the control plane and its services (PostgreSQL, Temporal, SeaweedFS, the API,
// the orchestrator) on one host, encode nodes on hosts of their own, delivery on another, each a
// network namespace with its own address (test/support/network-hosts.ts). Nothing is on a shared
// loopback: a part that dials 127.0.0.1 for another part finds nothing there. Videos go through it
// while a node's host is cut off mid-encode and comes back, and while a third node joins from a host
// that drops every inbound connection (nodes dial out and are called inside their own connection);
// every video ends `ready` and plays every frame from the delivery host.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { createTestNetwork, type NetworkHost, type TestNetwork } from '@kino/test/support/network-hosts';
import { startFarm, waitForRunningEncodes, type Farm, type FarmNodeProcess } from './farm.ts';

let network: TestNetwork;
let farm: Farm;
let workDir: string;
let clip: Uint8Array;
let sourceFrames: number;
const hosts: Record<string, NetworkHost> = {};

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-farm-hosts-'));
  network = createTestNetwork();
  try {
    for (const name of ['control', 'delivery', 'node-a', 'node-b', 'node-c']) hosts[name] = network.addHost(name);
    let clipPath: string;
    [farm, clipPath] = await Promise.all([
      startFarm({ playback: true, hosts: { controlPlane: hosts.control!, delivery: hosts.delivery! } }),
      // 640x360 on `standard`: one rendition, one encode per video.
      makeClip({ seconds: 6, width: 640, height: 360, fps: 30, audio: true, path: join(workDir, 'clip.mp4') }),
    ]);
    sourceFrames = await countFramesInFile(clipPath);
    clip = await readFile(clipPath);
  } catch (error) {
    network.remove();
    throw error;
  }
}, 180_000);

afterAll(async () => {
  try {
    await farm?.stop();
  } finally {
    network?.remove();
    await rm(workDir, { recursive: true, force: true });
  }
});

/** Whether a TCP connection to host:port opens within `timeoutMs` (refused or dropped: false). */
function connects(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (opened: boolean) => {
      socket.destroy();
      resolve(opened);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function nodeState(nodeId: string): Promise<string | undefined> {
  const row = await farm.db.selectFrom('encode_nodes').select('state').where('id', '=', nodeId).executeTakeFirst();
  return row?.state;
}

async function finalNode(videoId: string): Promise<string> {
  const result = (await farm.temporal.workflow.getHandle(`video:${videoId}`).result()) as {
    renditions: Array<{ outcome: { nodeId: string } }>;
  };
  return result.renditions[0]!.outcome.nodeId;
}

test('every part on a host of its own: a node host cut off mid-encode and back, a third node joining from a host that refuses every inbound connection; every video plays every frame from the delivery host', async () => {
  // Every address the parts were given is a host's, none loopback.
  assert.equal(new URL(farm.services.storage.S3_ENDPOINT).hostname, hosts.control!.address);
  assert.equal(new URL(farm.services.databaseUrl).hostname, hosts.control!.address);
  assert.equal(new URL(farm.deliveryUrl!).hostname, hosts.delivery!.address);

  // One slot, one ffmpeg thread and a slow preset each: encodes last long enough to be cut off.
  const [a, b] = await Promise.all([
    farm.startNode('a', { threads: 1, host: hosts['node-a'] }),
    farm.startNode('b', { threads: 1, host: hosts['node-b'] }),
  ]);
  // Nodes listen on no port: the orchestrators call them through the relay holding their connection.
  assert.equal(a.address.split(':')[0], hosts.control!.address);
  assert.equal(b.address.split(':')[0], hosts.control!.address);

  const videoIds: string[] = [];
  const submit = async (name: string) => {
    videoIds.push(await farm.submitVideo(clip, { compressionRatio: 'veryslow', filename: `${name}.mp4` }));
  };
  await submit('first');
  await submit('second');
  const running = await waitForRunningEncodes(farm, videoIds, 2);
  const onB = running.find((encode) => encode.nodeId === b.nodeId);
  assert.ok(onB, `one encode runs on node b: ${JSON.stringify(running)}`);

  // Node b's host is cut off mid-encode: the registry drops it at the heartbeat timeout and its
  // encode moves on. Meanwhile a third node joins from a host nothing can connect to.
  network.cut(hosts['node-b']!);
  let c: FarmNodeProcess;
  try {
    network.refuseInbound(hosts['node-c']!);
    c = await farm.startNode('c', { threads: 1, host: hosts['node-c'] });
    // Its one listening port (metrics, on its host's address) cannot be reached, as node a's can: nothing gets in.
    const metricsPort = (node: FarmNodeProcess) => Number(new URL(node.metricsUrl).port);
    assert.equal(await connects(hosts['node-a']!.address, metricsPort(a), 2_000), true, "node a's metrics answer");
    assert.equal(await connects(hosts['node-c']!.address, metricsPort(c), 2_000), false, 'node c refuses connections');
    assert.equal(c.address.split(':')[0], hosts.control!.address, 'node c is called through the relay');
    await submit('while-cut');
    await waitFor('node b to be dropped', async () => ((await nodeState(b.nodeId)) === 'gone' ? true : undefined), {
      timeoutMs: 60_000,
    });
    await farm.waitForStatus(onB.videoId, 'ready', 180_000);
    assert.notEqual(await finalNode(onB.videoId), b.nodeId, 'the cut-off encode finished on another node');
  } finally {
    network.restore(hosts['node-b']!);
  }

  // Back on the network, node b registers again under its id and takes work.
  await waitFor('node b to be back', async () => ((await nodeState(b.nodeId)) === 'active' ? true : undefined), {
    timeoutMs: 60_000,
  });
  await submit('after-return');
  for (const videoId of videoIds) await farm.waitForStatus(videoId, 'ready', 180_000);
  const nodesUsed = new Set(await Promise.all(videoIds.map(finalNode)));
  assert.ok(nodesUsed.has(c!.nodeId), `the node that joined took work: ${[...nodesUsed].join(', ')}`);

  // Played from the delivery host, which reads storage and the database at the control plane's address.
  for (const videoId of videoIds) {
    const master = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
    assert.equal(await countDecodedFrames(master), sourceFrames, `${videoId} plays every frame from delivery`);
  }
});
