// Where one details call spends its time (docs/list-performance.md#details-and-the-per-call-path-issue-16):
// seeds ready videos in one environment (every one with a `served` figure), then, for --rounds
// rounds, times --calls details calls through the API (`kino api` of a dev stack, rate limits in
// force), an API call with one query of its own, and the details call's SQL directly from this
// process, one statement at a time and chained as the API runs it. Prints p50/p99/max of each and
// the five slowest calls (their position in the round), to tell a slow statement from a slow moment.
//
// Usage: npm run bench:api:details -- [--videos=1000000] [--calls=1000] [--rounds=2]
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { findActiveApiKey, getVideo, incrementRateLimitCounters, listRenditions, listVideos, openDatabase, servedSegmentsOf, touchApiKey } from '@kino/control-plane';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { startTestStack } from '../../test/support/stack.ts';

const { values: flags } = parseArgs({
  options: { videos: { type: 'string', default: '1000000' }, calls: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '2' } },
});
const VIDEOS = Number(flags.videos);
const CALLS = Number(flags.calls);
const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
const stack = await startTestStack({
  nodes: 0, without: ['orchestrator', 'delivery'], analytics: 'chdb',
  env: { api: { RATE_LIMITS: 'general=10000000,video=10000000,uploadUrl=10000000,uploadUrlPerKey=10000000', LOG_LEVEL: 'warn' } },
});
const db = await openDatabase(stack.env.DATABASE_URL!);
const { apiUrl, apiKey, orgId, envId } = stack.status.devJson;
try {
  await sql`
    insert into videos (id, org_id, env_id, name, status, storage_path, video_quality, allow_public_access, parameters, duration_seconds,
                        source_width, source_height, source_frame_rate, created_at, updated_at, ready_at)
    select 'vid_b' || ${envId} || i, ${orgId}, ${envId}, 'Tutorial ' || i, 'ready', 'uploads/' || ${orgId} || '/' || ${envId} || '/bench-' || i || '/source.mp4',
           'standard', true, ${JSON.stringify(defaultEncodingParameters)}::jsonb, 10 + i % 3600, 1920, 1080, 30,
           now() - i * interval '90 seconds', now() - i * interval '90 seconds', now() - i * interval '90 seconds'
    from generate_series(1, ${VIDEOS}::int) i`.execute(db);
  await sql`insert into video_served_segments (video_id, segments) select id, 1000 from videos where env_id = ${envId}`.execute(db);
  await sql`vacuum analyze videos`.execute(db);
  await sql`vacuum analyze video_served_segments`.execute(db);
  const ids = (await listVideos(db, { orgId, envId, page: 50, pageSize: CALLS, sortBy: 'created_at', sortDir: 'desc' })).videos.map((v) => v.id);
  const key = (await findActiveApiKey(db, apiKey))!;
  const start = new Date(Math.floor(Date.now() / 3600_000) * 3600_000);
  const windows = [{ scope: `organization:${orgId}:general:3600`, windowStart: start }, { scope: `organization:${orgId}:video:3600`, windowStart: start }];
  const steps: Record<string, (id: string) => Promise<unknown>> = {
    'API GET details': async (id) => (await fetch(`${apiUrl}/${orgId}/videos/${id}/details`, { headers: { 'X-Api-Key': apiKey } })).text(),
    'API GET environments (key, counters, one query)': async () => (await fetch(`${apiUrl}/${orgId}/environments`, { headers: { 'X-Api-Key': apiKey } })).text(),
    'findActiveApiKey': () => findActiveApiKey(db, apiKey),
    'touchApiKey (no-op)': () => touchApiKey(db, key.id),
    'incrementRateLimitCounters': () => incrementRateLimitCounters(db, windows),
    'getVideo': (id) => getVideo(db, id),
    'listRenditions ‖ servedSegmentsOf': (id) => Promise.all([listRenditions(db, id), servedSegmentsOf(db, [id])]),
    'getVideo ‖ listRenditions ‖ servedSegmentsOf': (id) => Promise.all([getVideo(db, id), listRenditions(db, id), servedSegmentsOf(db, [id])]),
    'chain, four in a row: key, counters, video, (renditions ‖ served)': async (id) => {
      await findActiveApiKey(db, apiKey); await incrementRateLimitCounters(db, windows); await getVideo(db, id);
      await Promise.all([listRenditions(db, id), servedSegmentsOf(db, [id])]);
    },
    'chain, three in a row: key, counters, (video ‖ renditions ‖ served)': async (id) => {
      await findActiveApiKey(db, apiKey); await incrementRateLimitCounters(db, windows);
      await Promise.all([getVideo(db, id), listRenditions(db, id), servedSegmentsOf(db, [id])]);
    },
  };
  for (let round = 1; round <= Number(flags.rounds); round++) {
    for (const [name, step] of Object.entries(steps)) {
      const times: number[] = [];
      for (const id of ids) { const t = performance.now(); await step(id); times.push(performance.now() - t); }
      const slowest = times.map((ms, at) => ({ ms, at })).sort((a, b) => b.ms - a.ms).slice(0, 5);
      console.log(`   slowest of ${name}: ${slowest.map((x) => `#${x.at} ${x.ms.toFixed(1)}`).join(', ')}`);
      times.sort((a, b) => a - b);
      console.log(`round ${round}  ${name.padEnd(70)} p50 ${pct(times, 50).toFixed(2).padStart(6)}  p99 ${pct(times, 99).toFixed(2).padStart(6)}  max ${times.at(-1)!.toFixed(2).padStart(6)}`);
    }
  }
} finally {
  await db.destroy();
  await stack.stop();
}
