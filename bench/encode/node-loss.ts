// bench/encode node loss: the scenario, timed. Two encode nodes with one slot each, a 60 s
// 1080p30 clip with audio on `high` (480p, 720p, 1080p: three encodes, one per rendition), once
// undisturbed and once with the node running one of the encodes killed with SIGKILL once both nodes
// are encoding, in the same run, alternating. Prints, per run and as medians: the time from the kill
// to the lost encode's restart on the surviving node, how long the survivor's slot sat free before
// that restart, and the time from the process call to `ready` against the undisturbed run.
//
//   node --import tsx bench/encode/node-loss.ts [--runs 1] [--seconds 60]
//
// Timelines come from the nodes' own logs (`encode started`, `encode done`: when a slot went to a
// job and came back; test/farm/farm.ts nodeJobs) and the video's `ready_at`.
//
// Before the runs it also times dispatch: round trips of a call that does no work (RaisePriority of
// a job the node does not run) on the path every job's calls take, from the orchestrator's side to
// the node and back (through the relay and the node's own connection: docs/decisions/node-connect.md).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createEncodeClient } from '@kino/proto';
import { nodeJobs, startFarm, type Farm, type FarmNodeProcess } from '../../test/farm/farm.ts';
import { benchSource, log, median, s, submitBenchVideo, waitForReady } from './common.ts';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '60' },
  },
});
const runs = Number(options.runs);
const seconds = Number(options.seconds);

interface NodeLossRun {
  totalMs: number;
  /** From the kill to the lost encode's start on the survivor. */
  killToRestartMs: number;
  /** From the survivor's slot freeing (the job before) to the lost encode's start there. */
  slotIdleMs: number;
}

async function readyMs(farm: Farm, videoId: string, calledAt: number): Promise<number> {
  return (await waitForReady(farm, videoId)).readyAt - calledAt;
}

async function undisturbedRun(farm: Farm, source: Buffer): Promise<number> {
  const { videoId, calledAt } = await submitBenchVideo(farm, source, 'veryfast');
  return readyMs(farm, videoId, calledAt);
}

async function nodeLossRun(farm: Farm, source: Buffer, nodes: FarmNodeProcess[]): Promise<NodeLossRun> {
  const { videoId, calledAt } = await submitBenchVideo(farm, source, 'veryfast');
  // Both nodes encoding this video: kill one of them.
  const running = async () => {
    const out: Array<{ node: FarmNodeProcess; jobId: string }> = [];
    for (const node of nodes) {
      const job = (await nodeJobs(node)).find((j) => j.jobId.startsWith(`${videoId}-`) && j.endedAt === undefined);
      if (job) out.push({ node, jobId: job.jobId });
    }
    return out;
  };
  let both = await running();
  while (both.length < 2) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    both = await running();
  }
  const [lost, kept] = both as [{ node: FarmNodeProcess; jobId: string }, { node: FarmNodeProcess; jobId: string }];
  const killedAt = Date.now();
  await lost.node.process.kill9();
  log(`  killed ${lost.node.name} ${s(killedAt - calledAt)} after the process call (its encode: ${lost.jobId})`);
  const totalMs = await readyMs(farm, videoId, calledAt);

  const survivorJobs = (await nodeJobs(kept.node)).filter((j) => j.jobId.startsWith(`${videoId}-`));
  const restartIndex = survivorJobs.findIndex((j) => j.jobId === lost.jobId);
  if (restartIndex < 1)
    throw new Error(`the lost encode did not run again on ${kept.node.name}: ${JSON.stringify(survivorJobs)}`);
  const restart = survivorJobs[restartIndex]!;
  return {
    totalMs,
    killToRestartMs: restart.startedAt - killedAt,
    slotIdleMs: restart.startedAt - survivorJobs[restartIndex - 1]!.endedAt!,
  };
}

/** Round trips (ms) of `count` calls that do no work, to `node` as the orchestrator calls it, after a few to warm the channel. */
async function dispatchRoundTrips(farm: Farm, node: FarmNodeProcess, count: number): Promise<number[]> {
  const row = await farm.db
    .selectFrom('encode_nodes')
    .select('address')
    .where('id', '=', node.nodeId)
    .executeTakeFirstOrThrow();
  const client = createEncodeClient(row.address, farm.nodeToken, node.nodeId);
  try {
    const times: number[] = [];
    for (let i = 0; i < count + 5; i += 1) {
      const started = performance.now();
      await client.raisePriority({ jobId: 'bench-no-such-job' });
      if (i >= 5) times.push(performance.now() - started);
    }
    return times;
  } finally {
    client.close();
  }
}

async function main(): Promise<void> {
  const sourcePath = await benchSource(seconds);
  const source = await readFile(sourcePath);
  log(
    'starting the farm (PostgreSQL, Temporal, SeaweedFS, kino api, kino orchestrator, two nodes with one slot each)...',
  );
  const farm = await startFarm({
    heartbeatTimeoutMs: 10_000,
    // Whole-file encodes, as this benchmark has always measured them (chunks.ts measures chunking); ENCODE_CHUNK_SECONDS overrides.
    orchestratorEnv: { ENCODE_CHUNK_SECONDS: process.env.ENCODE_CHUNK_SECONDS ?? '0' },
  });
  try {
    let started = 0;
    const startNode = () => farm.startNode(`loss-${(started += 1)}`, { slots: 1 });
    const nodes = [await startNode(), await startNode()];
    const roundTrips = (await dispatchRoundTrips(farm, nodes[0]!, 200)).sort((a, b) => a - b);
    const dispatchLine = `dispatch round trip (200 calls): median ${median(roundTrips).toFixed(2)} ms, p95 ${roundTrips[Math.floor(roundTrips.length * 0.95)]!.toFixed(2)} ms, max ${roundTrips.at(-1)!.toFixed(2)} ms`;
    log(dispatchLine);
    const undisturbed: number[] = [];
    const disturbed: NodeLossRun[] = [];
    for (let run = 1; run <= runs; run += 1) {
      const ms = await undisturbedRun(farm, source);
      undisturbed.push(ms);
      log(`run ${run}: undisturbed ${s(ms)} to ready`);
      const loss = await nodeLossRun(farm, source, nodes);
      disturbed.push(loss);
      log(
        `run ${run}: node loss   ${s(loss.totalMs)} to ready; kill -> restart ${s(loss.killToRestartMs)}, survivor's slot free ${s(loss.slotIdleMs)} before it`,
      );
      // Back to two nodes for the next run.
      const alive = nodes.filter((n) => n.process.child.exitCode === null && n.process.child.signalCode === null);
      nodes.splice(0, nodes.length, ...alive, await startNode());
    }
    process.stdout.write(
      [
        '',
        `bench/encode node loss: ${seconds} s 1080p30 + audio, preset high (three encodes), 2 nodes x 1 slot, ${runs} run(s) each`,
        dispatchLine,
        `undisturbed (process -> ready):          ${undisturbed.map(s).join(', ')}  median ${s(median(undisturbed))}`,
        `node killed mid-encode (process -> ready): ${disturbed.map((d) => s(d.totalMs)).join(', ')}  median ${s(median(disturbed.map((d) => d.totalMs)))}`,
        `  kill -> lost encode restarted:         ${disturbed.map((d) => s(d.killToRestartMs)).join(', ')}  median ${s(median(disturbed.map((d) => d.killToRestartMs)))}`,
        `  survivor's slot free before restart:   ${disturbed.map((d) => s(d.slotIdleMs)).join(', ')}  median ${s(median(disturbed.map((d) => d.slotIdleMs)))}  (goal <= 2 s)`,
        '',
      ].join('\n'),
    );
  } finally {
    await farm.stop();
  }
}

await main();
