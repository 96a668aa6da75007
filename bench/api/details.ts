// Where one details call spends its time (docs/list-performance.md#the-per-call-path):
// seeds videos in one environment as bench:api does (bench/api/common.ts), then, for --rounds
// rounds, times --calls details calls through the API (`kino api` of a dev stack, rate limits in
// force, timed in the client process of client.ts), an API call with one query of its own, and the
// details call's SQL directly from this process, one statement at a time and chained as the API
// runs it. Prints p50/p99/max of each and the five slowest calls (their position in the round), to
// tell a slow statement from a slow moment.
//
// Usage: npm run bench:api:details -- [--videos=1000000] [--calls=1000] [--rounds=2]
import { parseArgs } from 'node:util';
import {
  findActiveApiKey,
  getVideo,
  incrementRateLimitCounters,
  listRenditions,
  listVideos,
  servedSegmentsOf,
  touchApiKey,
} from '@kino/database/repositories';
import { percentile, seedServed, seedVideos, startApiBenchStack, vacuumUntilVisible } from './common.ts';
import { startApiClient } from './client.ts';

const { values: flags } = parseArgs({
  options: {
    videos: { type: 'string', default: '1000000' },
    calls: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
  },
});
const VIDEOS = Number(flags.videos);
const CALLS = Number(flags.calls);
const { stack, db, apiUrl, apiKey, orgId, envId } = await startApiBenchStack('chdb');
const client = startApiClient();
try {
  await seedVideos(db, { orgId, envId, count: VIDEOS });
  await seedServed(db, envId);
  await vacuumUntilVisible(db);
  const ids = (
    await listVideos(db, { orgId, envId, page: 50, pageSize: CALLS, sortBy: 'created_at', sortDir: 'desc' })
  ).videos.map((v) => v.id);
  const key = (await findActiveApiKey(db, apiKey))!;
  const start = new Date(Math.floor(Date.now() / 3600_000) * 3600_000);
  const windows = [
    { scope: `organization:${orgId}:general:3600`, windowStart: start },
    { scope: `organization:${orgId}:video:3600`, windowStart: start },
  ];
  // Each step gives its duration in ms: an API call as the client process timed it, SQL as timed here.
  const api = (url: (id: string) => string) => async (id: string) =>
    (await client.call({ method: 'GET', url: url(id), headers: { 'X-Api-Key': apiKey } })).ms;
  const sqlSteps: Record<string, (id: string) => Promise<unknown>> = {
    findActiveApiKey: () => findActiveApiKey(db, apiKey),
    'touchApiKey (no-op)': () => touchApiKey(db, key.id),
    incrementRateLimitCounters: () => incrementRateLimitCounters(db, windows),
    getVideo: (id) => getVideo(db, id),
    'listRenditions ‖ servedSegmentsOf': (id) => Promise.all([listRenditions(db, id), servedSegmentsOf(db, [id])]),
    'getVideo ‖ listRenditions ‖ servedSegmentsOf': (id) =>
      Promise.all([getVideo(db, id), listRenditions(db, id), servedSegmentsOf(db, [id])]),
    'chain, four in a row: key, counters, video, (renditions ‖ served)': async (id) => {
      await findActiveApiKey(db, apiKey);
      await incrementRateLimitCounters(db, windows);
      await getVideo(db, id);
      await Promise.all([listRenditions(db, id), servedSegmentsOf(db, [id])]);
    },
    'chain, three in a row: key, counters, (video ‖ renditions ‖ served)': async (id) => {
      await findActiveApiKey(db, apiKey);
      await incrementRateLimitCounters(db, windows);
      await Promise.all([getVideo(db, id), listRenditions(db, id), servedSegmentsOf(db, [id])]);
    },
  };
  const steps: Record<string, (id: string) => Promise<number>> = {
    'API GET details': api((id) => `${apiUrl}/${orgId}/videos/${id}/details`),
    'API GET environments (key, counters, one query)': api(() => `${apiUrl}/${orgId}/environments`),
    ...Object.fromEntries(
      Object.entries(sqlSteps).map(([name, step]) => [
        name,
        async (id: string) => {
          const t = performance.now();
          await step(id);
          return performance.now() - t;
        },
      ]),
    ),
  };
  for (let round = 1; round <= Number(flags.rounds); round++) {
    for (const [name, step] of Object.entries(steps)) {
      const times: number[] = [];
      for (const id of ids) times.push(await step(id));
      const slowest = times
        .map((ms, at) => ({ ms, at }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5);
      console.log(`   slowest of ${name}: ${slowest.map((x) => `#${x.at} ${x.ms.toFixed(1)}`).join(', ')}`);
      times.sort((a, b) => a - b);
      console.log(
        `round ${round}  ${name.padEnd(70)} p50 ${percentile(times, 50).toFixed(2).padStart(6)}  p99 ${percentile(times, 99).toFixed(2).padStart(6)}  max ${times.at(-1)!.toFixed(2).padStart(6)}`,
      );
    }
  }
} finally {
  client.stop();
  await db.destroy();
  await stack.stop();
}
