// Each dependency of a running farm restarted in turn, as an operator's maintenance window (a fast
// restart) or a crash (kill -9, then started again) would: PostgreSQL, the Temporal server, S3 and
// the analytics store. Each time a video is being processed and another is being played through
// delivery. While the dependency is down the API's health names it and answers 503 in the
// envelope; afterwards every process of the farm is still the process it was (same pid), every
// video is ready with every frame, and every segment served is counted once in analytics.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { scrapeUntil } from '@kino/test/support/metrics';
import { startFarm, type Farm } from './farm.ts';

const dependencies = [
  { service: 'postgres', check: 'database' },
  { service: 'temporal', check: 'temporal' },
  { service: 's3', check: 'storage' },
  { service: 'analytics', check: 'analytics' },
] as const;

/** The farm's own processes: none of them may die or be restarted while its dependencies do. */
const farmProcesses = ['api', 'orchestrator', 'delivery', 'node-a', 'node-b'];

let farm: Farm;
let workDir: string;
let clip: Uint8Array;
let sourceFrames: number;
let pidsBefore: Record<string, number | undefined>;
/** The video players watch during every restart, and how many of its segments they were served. */
let watched: string;
/** A ready video nobody plays: delivery has none of its files cached, so it must read them from storage. */
let unplayed: string;
let segmentsServed = 0;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-dependency-restarts-'));
  let clipPath: string;
  [farm, clipPath] = await Promise.all([
    // Durable: PostgreSQL is killed with -9, and a crash must not lose what it acknowledged.
    startFarm({ playback: true, durable: true }),
    // 640x360 on `standard`: one rendition, a short encode.
    makeClip({ seconds: 4, width: 640, height: 360, fps: 25, audio: true, path: join(workDir, 'clip.mp4') }),
  ]);
  clip = await readFile(clipPath);
  sourceFrames = await countFramesInFile(clipPath);
  await Promise.all([farm.startNode('a'), farm.startNode('b')]);
  [watched, unplayed] = await Promise.all([farm.submitVideo(clip), farm.submitVideo(clip)]);
  await Promise.all([farm.waitForStatus(watched, 'ready'), farm.waitForStatus(unplayed, 'ready')]);
  pidsBefore = farmPids();
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

function farmPids(): Record<string, number | undefined> {
  return Object.fromEntries(farmProcesses.map((name) => [name, farm.launcher.process(name).child.pid]));
}

function assertSameProcesses(): void {
  assert.deepEqual(farmPids(), pidsBefore);
  for (const name of farmProcesses) {
    const { child } = farm.launcher.process(name);
    assert.equal(child.exitCode ?? child.signalCode, null, `${name} still runs`);
  }
}

/** Plays the watched video once through delivery (master, rendition playlist, every segment); returns the segments answered 200. */
async function playOnce(): Promise<number> {
  const masterUrl = `${farm.deliveryUrl}/${watched}/master.m3u8`;
  const master = await fetch(masterUrl);
  const masterText = await master.text();
  if (master.status !== 200) return 0;
  const playlistUrl = new URL(
    masterText.split('\n').find((line) => line.endsWith('.m3u8'))!,
    masterUrl,
  );
  const playlist = await fetch(playlistUrl);
  const playlistText = await playlist.text();
  if (playlist.status !== 200) return 0;
  let served = 0;
  for (const uri of playlistText.split('\n').filter((line) => line.endsWith('.m4s'))) {
    const segment = await fetch(new URL(uri, playlistUrl));
    await segment.arrayBuffer();
    if (segment.status === 200) served += 1;
  }
  return served;
}

/**
 * A viewer playing the watched video over and over until stopped; stop() resolves with the
 * segments served. Answers refused while a dependency is down are not segments served.
 */
function startPlayer(): { stop(): Promise<number> } {
  let playing = true;
  const playLoop = (async () => {
    let served = 0;
    while (playing) {
      served += await playOnce();
      // A player comes back for more every few seconds; a pause keeps this one from taking a core.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return served;
  })();
  // Held until stop(), which rethrows: a player that fails is the test's failure, not a stray rejection.
  const played = playLoop.then(
    (served) => ({ served }),
    (error: unknown) => ({ error }),
  );
  return {
    stop: async () => {
      playing = false;
      const outcome = await played;
      if ('error' in outcome) throw outcome.error;
      return outcome.served;
    },
  };
}

async function apiHealth(): Promise<{
  status: number;
  body: { code?: string; body: { status: string; checks: Record<string, { status: string }> } };
}> {
  const response = await fetch(`${farm.apiUrl}/health`);
  return { status: response.status, body: (await response.json()) as never };
}

async function assertPlaysEveryFrame(videoId: string): Promise<void> {
  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  assert.equal(await countDecodedFrames(join(dir, 'hls', 'master.m3u8')), sourceFrames);
}

/** Processes a video while `service` is stopped (`how`) and started again; checks what clients see meanwhile. */
async function rideThrough(
  service: (typeof dependencies)[number]['service'],
  check: string,
  how: 'fast' | 'kill9',
): Promise<void> {
  const videoId = await farm.submitVideo(clip);
  await farm.launcher.stopService(service, how);

  const down = await apiHealth();
  assert.equal(down.status, 503);
  assert.equal(down.body.code, 'service_unavailable');
  assert.equal(down.body.body.status, 'degraded');
  assert.equal(down.body.body.checks[check]?.status, 'error', `health names ${check}`);
  for (const [name, other] of Object.entries(down.body.body.checks)) {
    if (name !== check) assert.notEqual(other.status, 'error', `only ${check} is down, not ${name}`);
  }
  if (service === 'postgres') {
    const listing = await fetch(`${farm.apiUrl}/${farm.orgId}/environments`, { headers: { 'X-Api-Key': farm.apiKey } });
    assert.equal(listing.status, 503);
    const envelope = (await listing.json()) as { title: string; status: number; code: string; detail: string };
    assert.deepEqual(
      { title: envelope.title, status: envelope.status, code: envelope.code },
      { title: 'Service Unavailable', status: 503, code: 'service_unavailable' },
    );
    // Delivery has not met this video yet: it cannot look it up either.
    const unknown = await fetch(`${farm.deliveryUrl}/${videoId}/master.m3u8`);
    assert.equal(unknown.status, 503);
    assert.equal(((await unknown.json()) as { code: string }).code, 'service_unavailable');
  }
  if (service === 's3') {
    // A file delivery has not cached: nothing to read it from until storage is back.
    const uncached = await fetch(`${farm.deliveryUrl}/${unplayed}/master.m3u8`);
    assert.equal(uncached.status, 503);
    assert.equal(((await uncached.json()) as { code: string }).code, 'service_unavailable');
  }

  await farm.launcher.startServiceAgain(service);
  await waitFor('the API to be healthy again', async () => (await apiHealth()).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 200,
  });
  await farm.waitForStatus(videoId, 'ready', 180_000);
  await assertPlaysEveryFrame(videoId);
}

for (const { service, check } of dependencies) {
  for (const how of ['fast', 'kill9'] as const) {
    test(`${service}, ${how === 'fast' ? 'restarted cleanly' : 'killed -9 and started again'} mid-workflow and mid-playback: the farm rides through`, async () => {
      const player = startPlayer();
      try {
        await rideThrough(service, check, how);
      } finally {
        segmentsServed += await player.stop();
      }
      assertSameProcesses();
    });
  }
}

test('every segment served during the restarts is counted once in analytics', async () => {
  assert.ok(segmentsServed > 0);
  // Rows wait in delivery's spool while the store is down and ship once it is back.
  await scrapeUntil(farm.metricsUrls.delivery!, (scraped) =>
    assert.equal(scraped.value('kino_delivery_spool_files'), 0),
  );
  const [rows] = await farm.clickhouse!.query<{ final: number; distinct: number }>(
    `SELECT count() AS final, uniqExact(row_id) AS distinct FROM segment_deliveries FINAL WHERE video_id = '${watched}'`,
  );
  assert.deepEqual(rows, { final: segmentsServed, distinct: segmentsServed });
  assertSameProcesses();
});
