// API benchmark at library scale: seeds a million videos in one environment (plus a few small ones
// and an empty one) in bulk through the schema the migrations made, then calls every list shape,
// details, upload-url and process through the real API (`kino api` of a dev stack, with the rate
// limits in force, raised by RATE_LIMITS) --calls times each, and prints p50/p99 beside the same
// repository SQL run directly on PostgreSQL in the same run (the floor) and their ratio. The API
// calls are timed in a client process of their own (client.ts), one at a time, as wrk -c1 would;
// a p99 is the 1 % slowest of a thousand calls by default, not the second slowest of two hundred.
//
// Each shape, and its SQL, is first called untimed for --warmup-seconds (warmUp, below).
//
// Usage: npm run bench:api -- [--videos=1000000] [--calls=1000] [--warmup-seconds=3] [--analytics=chdb|none]
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { newId } from '@kino/infra';
import {
  countLiveVideos,
  createEnvironment,
  createUpload,
  createVideo,
  findLiveVideoByStoragePath,
  findUpload,
  getVideo,
  listRenditions,
  listVideos,
  servedSegmentsOf,
  type ListVideosQuery,
} from '@kino/database/repositories';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { percentile, seedServed, seedVideos, startApiBenchStack, vacuumUntilVisible } from './common.ts';
import { startApiClient } from './client.ts';

const { values: flags } = parseArgs({
  options: {
    videos: { type: 'string', default: '1000000' },
    calls: { type: 'string', default: '1000' },
    'warmup-seconds': { type: 'string', default: '3' },
    analytics: { type: 'string', default: 'chdb' },
  },
});
const VIDEOS = Number(flags.videos);
const CALLS = Number(flags.calls);
const WARMUP_SECONDS = Number(flags['warmup-seconds']);
const SMALL_ENVIRONMENTS = 3;
const SMALL_ENVIRONMENT_VIDEOS = 2_000;
/** An MP4 opening (ftyp box): what the process call sniffs before it accepts an upload. */
const MP4_OPENING = Buffer.from('\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2', 'latin1');

const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
/**
 * Untimed calls for --warmup-seconds before a shape is timed, so its figures are the steady state
 * of a process that has been serving, not V8 still compiling the path: on a fresh API process the
 * details p99 of the first 1,000 calls was 6.7-7.0 ms, of the fourth 1,000 3.0-3.1 ms.
 */
async function warmUp(run: (i: number) => Promise<unknown>): Promise<void> {
  const until = performance.now() + WARMUP_SECONDS * 1000;
  for (let i = 0; performance.now() < until; i++) await run(i);
}
async function timed(times: number[], run: () => Promise<unknown>): Promise<void> {
  const began = performance.now();
  await run();
  times.push(performance.now() - began);
}

const { stack, db, apiUrl, apiKey, orgId, envId } = await startApiBenchStack(flags.analytics as 'chdb' | 'none');
const client = startApiClient();
try {
  const seed = (env: string, count: number) => seedVideos(db, { orgId, envId: env, count });
  let began = Date.now();
  await seed(envId, VIDEOS);
  await seedServed(db, envId);
  const smallEnvs: string[] = [];
  for (let n = 0; n < SMALL_ENVIRONMENTS; n++) {
    const small = await createEnvironment(db, { orgId, name: `small ${n}` });
    smallEnvs.push(small.id);
    await seed(small.id, SMALL_ENVIRONMENT_VIDEOS);
  }
  const emptyEnv = (await createEnvironment(db, { orgId, name: 'empty' })).id;
  const seedMs = Date.now() - began;
  began = Date.now();
  await vacuumUntilVisible(db);
  const vacuumMs = Date.now() - began;
  // What the migration's backfill holds writers for, at this size: one grouped count of the table.
  began = Date.now();
  await sql`select env_id, status, min(org_id), count(*) from videos where deleted_at is null group by env_id, status`.execute(
    db,
  );
  const backfillMs = Date.now() - began;
  // What 20261124T0100_video_search holds writers for: its copy of the live rows, here into a table
  // of the same shape (its key included), dropped after.
  await sql`create table search_backfill (like video_search including defaults, primary key (id))`.execute(db);
  began = Date.now();
  await sql`insert into search_backfill (id, org_id, env_id, name_folded, status, duration_seconds, created_at)
            select id, org_id, env_id, lower(name), status, duration_seconds, created_at from videos where deleted_at is null`.execute(
    db,
  );
  const searchBackfillMs = Date.now() - began;
  await sql`drop table search_backfill`.execute(db);
  log(
    `seeded ${VIDEOS.toLocaleString('en')} + ${SMALL_ENVIRONMENTS}×${SMALL_ENVIRONMENT_VIDEOS} videos in ${(seedMs / 1000).toFixed(0)} s`,
  );

  const live = await countLiveVideos(db, { orgId, envId });
  const deepPage = (page: number) => Math.min(page, Math.ceil(live / 20));
  const from = new Date(Date.now() - 60 * 86_400_000).toISOString().slice(0, 10);
  const to = new Date(Date.now() - 31 * 86_400_000).toISOString().slice(0, 10);
  const base: ListVideosQuery = { orgId, envId, page: 1, pageSize: 20, sortBy: 'created_at', sortDir: 'desc' };
  const lists: { name: string; path: string; query: ListVideosQuery }[] = [
    { name: 'list, default (page 1)', path: '', query: base },
    { name: 'list, sortBy=name', path: 'sortBy=name&sortDir=asc', query: { ...base, sortBy: 'name', sortDir: 'asc' } },
    { name: 'list, sortBy=duration', path: 'sortBy=duration', query: { ...base, sortBy: 'duration' } },
    { name: 'list, sortBy=status', path: 'sortBy=status', query: { ...base, sortBy: 'status' } },
    { name: 'list, search=keynote', path: 'search=keynote', query: { ...base, search: 'keynote' } },
    { name: 'list, status=failed', path: 'status=failed', query: { ...base, status: 'failed' } },
    {
      name: 'list, from/to (30 days)',
      path: `from=${from}&to=${to}`,
      query: { ...base, createdFrom: new Date(from), createdBefore: new Date(Date.parse(to) + 86_400_000) },
    },
    { name: 'list, page 100', path: 'page=100', query: { ...base, page: 100 } },
    { name: `list, page ${deepPage(4000)}`, path: `page=${deepPage(4000)}`, query: { ...base, page: deepPage(4000) } },
    {
      name: `list, page ${deepPage(10_000)}`,
      path: `page=${deepPage(10_000)}`,
      query: { ...base, page: deepPage(10_000) },
    },
    {
      name: `list, page ${deepPage(10_000)}, sortBy=name`,
      path: `page=${deepPage(10_000)}&sortBy=name`,
      query: { ...base, page: deepPage(10_000), sortBy: 'name' },
    },
    { name: 'list, pageSize=100', path: 'pageSize=100', query: { ...base, pageSize: 100 } },
    { name: 'organization-wide list', path: 'org', query: { ...base, envId: undefined } },
    {
      name: 'organization-wide, search=keynote',
      path: 'org:search=keynote',
      query: { ...base, envId: undefined, search: 'keynote' },
    },
    { name: 'list of an empty environment', path: 'empty', query: { ...base, envId: emptyEnv } },
  ];
  const urlOf = (path: string) => {
    if (path === 'org') return `${apiUrl}/${orgId}/videos`;
    if (path.startsWith('org:')) return `${apiUrl}/${orgId}/videos?${path.slice(4)}`;
    if (path === 'empty') return `${apiUrl}/${orgId}/environments/${emptyEnv}/videos`;
    return `${apiUrl}/${orgId}/environments/${envId}/videos${path ? `?${path}` : ''}`;
  };
  /** A call through the API, timed in the client process; `times` gets its duration. */
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown, times?: number[]) => {
    const answer = await client.call({
      method,
      url,
      headers: { 'X-Api-Key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (answer.status !== 200) throw new Error(`${method} ${url} answered ${answer.status}: ${answer.text}`);
    times?.push(answer.ms);
    return JSON.parse(answer.text) as { body: Record<string, unknown> };
  };

  const results: { name: string; api: number[]; floor: number[] }[] = [];
  for (const list of lists) {
    const api: number[] = [];
    const floor: number[] = [];
    const first = await call('GET', urlOf(list.path));
    const pagination = first.body.pagination as { total: number };
    const direct = await listVideos(db, list.query);
    if (pagination.total !== direct.total)
      throw new Error(`${list.name}: the API says ${pagination.total}, the repository ${direct.total}`);
    const listFloor = async () =>
      servedSegmentsOf(
        db,
        (await listVideos(db, list.query)).videos.map((v) => v.id),
      );
    await warmUp(() => call('GET', urlOf(list.path)));
    for (let i = 0; i < CALLS; i++) await call('GET', urlOf(list.path), undefined, api);
    await warmUp(listFloor);
    for (let i = 0; i < CALLS; i++) await timed(floor, listFloor);
    results.push({ name: `${list.name} (total ${pagination.total.toLocaleString('en')})`, api, floor });
    log(`${list.name} done`);
  }

  // Warmed up on other videos than the timed ones, so their rows are not read ahead of time.
  const detailIds = (await listVideos(db, { ...base, page: 50, pageSize: CALLS })).videos.map((v) => v.id);
  const warmUpIds = (await listVideos(db, { ...base, page: 51, pageSize: CALLS })).videos.map((v) => v.id);
  const details = { name: 'details', api: [] as number[], floor: [] as number[] };
  const detailsFloor = (id: string) =>
    Promise.all([getVideo(db, id), listRenditions(db, id), servedSegmentsOf(db, [id])]);
  await warmUp((i) => call('GET', `${apiUrl}/${orgId}/videos/${warmUpIds[i % warmUpIds.length]!}/details`));
  for (const id of detailIds) await call('GET', `${apiUrl}/${orgId}/videos/${id}/details`, undefined, details.api);
  await warmUp((i) => detailsFloor(warmUpIds[i % warmUpIds.length]!));
  for (const id of detailIds) await timed(details.floor, () => detailsFloor(id));
  results.push(details);

  // upload-url, then a PUT of an MP4 opening to the signed URL (not timed), then process.
  const uploads = { name: 'upload-url', api: [] as number[], floor: [] as number[] };
  const processes = { name: 'process', api: [] as number[], floor: [] as number[] };
  const uploadUrl = `${apiUrl}/${orgId}/environments/${envId}/videos/upload-url`;
  const uploadAndProcess = async (name: string, timing?: { uploads: number[]; processes: number[] }) => {
    const ticket = (
      await call('POST', uploadUrl, { filename: `${name}.mp4`, fileSize: MP4_OPENING.length }, timing?.uploads)
    ).body as {
      signedURL: string;
      bucketPath: string;
    };
    const put = await fetch(ticket.signedURL, {
      method: 'PUT',
      body: MP4_OPENING,
      headers: { 'content-type': 'video/mp4' },
    });
    await put.arrayBuffer();
    if (put.status !== 200) throw new Error(`PUT to the signed URL answered ${put.status}`);
    await call(
      'POST',
      `${apiUrl}/${orgId}/environments/${envId}/videos/process`,
      { storagePath: ticket.bucketPath, videoQuality: 'standard', allowPublicAccess: true },
      timing?.processes,
    );
  };
  await warmUp((i) => uploadAndProcess(`warm-up-${i}`));
  for (let i = 0; i < CALLS; i++)
    await uploadAndProcess(`bench-${i}`, { uploads: uploads.api, processes: processes.api });
  // Their SQL, directly (in the small environment, so the lists above are not changed).
  for (let i = 0; i < CALLS; i++) {
    const bucketPath = `uploads/${orgId}/${smallEnvs[0]}/floor-${i}/source.mp4`;
    await timed(uploads.floor, () =>
      createUpload(db, {
        id: newId('upl'),
        orgId,
        envId: smallEnvs[0]!,
        bucketPath,
        filename: 'floor.mp4',
        contentType: 'video/mp4',
        fileSize: 24,
        expiresAt: new Date(Date.now() + 3600_000),
      }),
    );
    await timed(processes.floor, async () => {
      await findUpload(db, { orgId, envId: smallEnvs[0]!, bucketPath });
      await findLiveVideoByStoragePath(db, bucketPath);
      await createVideo(db, {
        id: newId('vid'),
        orgId,
        envId: smallEnvs[0]!,
        name: 'floor',
        storagePath: bucketPath,
        videoQuality: 'standard',
        allowPublicAccess: true,
        parameters: defaultEncodingParameters,
      });
    });
  }
  results.push(uploads, processes);

  console.log(
    `\nAPI benchmark: ${VIDEOS.toLocaleString('en')} videos in one environment, ${SMALL_ENVIRONMENTS} × ${SMALL_ENVIRONMENT_VIDEOS.toLocaleString('en')} in others, one empty`,
  );
  console.log(
    `  seeded in ${(seedMs / 1000).toFixed(1)} s (INSERT ... SELECT generate_series, list indexes, count and search triggers in place); vacuum analyze (until the visibility map covers the table) ${(vacuumMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `  what migrations hold writers for at this size: video_counts' grouped count ${backfillMs.toFixed(0)} ms, video_search's copy ${searchBackfillMs.toFixed(0)} ms`,
  );
  console.log(
    `  analytics store: ${flags.analytics} (lists and details read \`served\` from video_served_segments in PostgreSQL, one row per ready video)\n`,
  );
  console.log(
    `  ${'call'.padEnd(52)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'SQL p50'.padStart(8)} ${'SQL p99'.padStart(8)} ${'ratio'.padStart(6)}`,
  );
  for (const r of results) {
    const api = summary(r.api);
    const floor = summary(r.floor);
    console.log(
      `  ${r.name.padEnd(52)} ${api.p50.toFixed(1).padStart(8)} ${api.p99.toFixed(1).padStart(8)} ${floor.p50.toFixed(1).padStart(8)} ${floor.p99.toFixed(1).padStart(8)} ${(api.p50 / floor.p50).toFixed(1).padStart(6)}`,
    );
  }
  console.log(
    `  (${CALLS} sequential calls each through ${apiUrl}, after ${WARMUP_SECONDS} s of untimed calls; ratio = API p50 ÷ SQL p50)`,
  );
} finally {
  client.stop();
  await db.destroy();
  await stack.stop();
}
