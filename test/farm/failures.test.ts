// The farm's failure paths on real processes: an encode node killed with SIGKILL mid-encode, and
// the orchestrator killed and restarted mid-workflow. Either way the video becomes `ready` and
// every frame of its ladder decodes. A node killed mid-transcription costs a retry on another node,
// never the captions.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import { workflowIds } from '@kino/proto/contract';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { englishSentences, makeSpeechVideo, speakSentences, wordErrorRate } from '@kino/test/support/speech';
import { attemptsByActivity, nodeJobs, startFarm, type Farm, type FarmNodeProcess } from './farm.ts';

let farm: Farm;
let workDir: string;
let clipPath: string;
let sourceFrames: number;
const nodes: Record<string, FarmNodeProcess> = {};

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-farm-failures-'));
  [farm, clipPath] = await Promise.all([
    // The nodes have the speech engine (Whisper tiny.en): the transcription test below.
    startFarm({ speech: true }),
    // 640x360 on `standard`: one rendition (360p), so one encode to interrupt; 12 s, so that it
    // lasts seconds on one thread.
    makeClip({ seconds: 12, width: 640, height: 360, fps: 30, audio: true, path: join(workDir, 'clip.mp4') }),
  ]);
  sourceFrames = await countFramesInFile(clipPath);
  // One ffmpeg thread per node and a slow x264 preset: an encode lasts long enough to be interrupted.
  [nodes.a, nodes.b] = await Promise.all([farm.startNode('a', { threads: 1 }), farm.startNode('b', { threads: 1 })]);
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

/** The encode activities: a whole ladder (ENCODE_GROUPING=ladder, the default) or one rendition. */
const encodeActivityTypes = ['encodeRenditions', 'encodeRendition'];

function encodeAttempts(attempts: Record<string, number>): number {
  return Math.max(...encodeActivityTypes.map((type) => attempts[type] ?? 0));
}

/**
 * The node running the encode of a video, read from the nodes' own logs (`encode started`, not yet
 * done): an encode's heartbeat cannot say it, as the first beat (queued, no node yet) goes out at
 * once and Temporal holds the later ones back for 16 s, longer than this encode lasts on an idle
 * machine.
 */
async function encodeInProgress(videoId: string): Promise<{ nodeId: string }> {
  return waitFor(
    `an encode of ${videoId} to run on a node`,
    async () => {
      for (const node of Object.values(nodes)) {
        const jobs = await nodeJobs(node);
        if (jobs.some((job) => job.jobId.startsWith(`${videoId}-`) && job.kind === 'whole' && !job.endedAt))
          return { nodeId: node.nodeId };
      }
      return undefined;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

async function assertPlaysEveryFrame(videoId: string): Promise<void> {
  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  assert.equal(await countDecodedFrames(join(dir, 'hls', 'master.m3u8')), sourceFrames);
  assert.equal(await countDecodedFrames(join(dir, 'hls', '360p', 'playlist.m3u8')), sourceFrames);
}

test('kill -9 an encode node mid-encode: the encode is retried on the other node and the video becomes ready', async () => {
  const videoId = await farm.submitVideo(await readFile(clipPath), { compressionRatio: 'slower' });
  const running = await encodeInProgress(videoId);
  const victim = Object.values(nodes).find((n) => n.nodeId === running.nodeId)!;
  const survivor = Object.values(nodes).find((n) => n.nodeId !== running.nodeId)!;
  await victim.process.kill9();

  await farm.waitForStatus(videoId, 'ready', 120_000);
  const result = (await farm.temporal.workflow.getHandle(`video:${videoId}`).result()) as {
    status: string;
    renditions: Array<{ outcome: { nodeId: string } }>;
  };
  assert.equal(result.status, 'ready');
  assert.equal(result.renditions[0]!.outcome.nodeId, survivor.nodeId, 'the retry ran on the surviving node');
  assert.ok(encodeAttempts(await attemptsByActivity(farm, videoId)) >= 2, 'the encode took a second attempt');
  await assertPlaysEveryFrame(videoId);

  // The dead node gets no more work; its slot is not held.
  const dead = await farm.db
    .selectFrom('encode_nodes')
    .select('state')
    .where('id', '=', victim.nodeId)
    .executeTakeFirstOrThrow();
  assert.equal(dead.state, 'gone');
  assert.deepEqual(await farm.db.selectFrom('node_leases').select('id').execute(), []);
});

test('restart the orchestrator mid-workflow (SIGKILL, start again): the workflow completes', async () => {
  const videoId = await farm.submitVideo(await readFile(clipPath), { compressionRatio: 'slower' });
  await encodeInProgress(videoId);
  await farm.orchestrator.kill9();
  farm.orchestrator = await farm.startOrchestrator();

  await farm.waitForStatus(videoId, 'ready', 150_000);
  await assertPlaysEveryFrame(videoId);
  assert.ok(encodeAttempts(await attemptsByActivity(farm, videoId)) >= 2, 'the encode of the dead worker was retried');
  await waitFor(
    'every slot to be given back',
    async () => (await farm.db.selectFrom('node_leases').select('id').execute()).length === 0,
    {
      timeoutMs: 30_000,
    },
  );
});

/** The node transcribing `videoId` now, from the nodes' logs (`transcribe started`, not yet done or failed). */
async function transcriptionInProgress(videoId: string): Promise<FarmNodeProcess> {
  return waitFor(
    `a transcription of ${videoId} to run on a node`,
    async () => {
      for (const node of Object.values(nodes)) {
        if (node.process.child.exitCode !== null) continue;
        const open = new Set<string>();
        for (const line of (await readFile(node.logFile, 'utf8')).split('\n')) {
          if (!line.startsWith('{')) continue;
          const entry = JSON.parse(line) as { msg?: string; jobId?: string };
          if (!entry.jobId?.startsWith(`${videoId}-`)) continue;
          if (entry.msg === 'transcribe started') open.add(entry.jobId);
          else if (/^transcribe (done|failed|cancelled)/.test(entry.msg ?? '')) open.delete(entry.jobId);
        }
        if (open.size > 0) return node;
      }
      return undefined;
    },
    { timeoutMs: 120_000, intervalMs: 50 },
  );
}

test('kill -9 the node transcribing a video: the transcription is retried on another node and the track appears', async () => {
  // The first test killed a node: a fresh one, so that two nodes can transcribe.
  nodes.c = await farm.startNode('c', { threads: 1 });
  // Two sentences (9 s): enough to catch the engine mid-run, little to encode.
  const sentences = englishSentences.slice(0, 2);
  const spoken = await speakSentences({ sentences, dir: await mkdtemp(join(workDir, 'speech-')) });
  const video = await makeSpeechVideo(spoken.path, join(workDir, 'speech.mp4'));
  const videoId = await farm.submitVideo(await readFile(video));
  await farm.waitForStatus(videoId, 'ready', 120_000);
  await farm.kino.videos.generateCaptions(farm.orgId, videoId, { language: 'en' });
  const victim = await transcriptionInProgress(videoId);
  await victim.process.kill9();

  const run = (await farm.temporal.workflow.getHandle(workflowIds.generateCaptions(videoId, 'en')).result()) as {
    status: string;
    reason?: string;
  };
  assert.equal(run.status, 'ready', run.reason);
  const transcript = await farm.kino.videos.transcript(farm.orgId, videoId, { language: 'en' });
  assert.equal(transcript.source, 'generated');
  const wer = wordErrorRate(sentences.join(' '), transcript.text);
  assert.ok(wer <= 0.15, `WER ${(wer * 100).toFixed(1)} % over 15 %: heard ${JSON.stringify(transcript.text)}`);
  const attempts =
    (await attemptsByActivity(farm, videoId, workflowIds.generateCaptions(videoId, 'en'))).transcribeSpeech ?? 0;
  assert.ok(attempts >= 2, `the transcription took ${attempts} attempt(s): the killed node's was not retried`);
});

test('SIGTERM stops the orchestrator cleanly: it exits 0', async () => {
  const orchestrator = farm.orchestrator;
  orchestrator.child.kill('SIGTERM');
  const code = await Promise.race([
    orchestrator.exited,
    new Promise<string>((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000).unref()),
  ]);
  assert.equal(code, 0);
});
