// What both API benchmarks (run.ts, details.ts) do the same way: the stack with the rate limits in
// force (raised), the bulk seed through the migrations' schema, the vacuum that makes index-only
// scans possible, and the percentile.
import { sql } from 'kysely';
import { waitFor } from '@kino/dev';
import { openDatabase } from '@kino/database';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { startTestStack } from '../../test/support/stack.ts';

type Db = Awaited<ReturnType<typeof openDatabase>>;

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** A dev stack without orchestrator or delivery (Temporal runs: process starts a workflow no one picks up). */
export async function startApiBenchStack(analytics: 'chdb' | 'none') {
  const stack = await startTestStack({
    nodes: 0,
    without: ['orchestrator', 'delivery'],
    analytics,
    env: {
      api: {
        RATE_LIMITS: 'general=10000000,video=10000000,uploadUrl=10000000,uploadUrlPerKey=10000000',
        LOG_LEVEL: 'warn',
      },
    },
  });
  return { stack, db: await openDatabase(stack.env.DATABASE_URL!), ...stack.status.devJson };
}

/**
 * The bulk load: one INSERT ... SELECT over generate_series. Names draw on a small vocabulary;
 * about 1 % say "keynote". Creation times step back 90 s per video (a million span about three
 * years). 90 % ready, 7 % transcoding, 3 % failed; 2 % deleted.
 */
export async function seedVideos(
  db: Db,
  { orgId, envId, count }: { orgId: string; envId: string; count: number },
): Promise<void> {
  await sql`
    insert into videos (id, org_id, env_id, name, status, failure_reason, storage_path, video_quality, allow_public_access,
                        parameters, duration_seconds, source_width, source_height, source_frame_rate, created_at, updated_at, ready_at, deleted_at)
    select 'vid_b' || ${envId} || i, ${orgId}, ${envId},
           case when i % 97 = 0 then 'Annual keynote ' || i
                else (array['Product demo','Interview','Tutorial','Webinar','Launch','Recap','Training','Podcast','Review','Trailer'])[1 + i % 10]
                     || ' ' || (array['spring','summer','autumn','winter','alpha','beta','north','south','east','west','one','two'])[1 + (i / 10) % 12] || ' ' || i end,
           s.status, case when s.status = 'failed' then 'the file has no video stream' end,
           'uploads/' || ${orgId} || '/' || ${envId} || '/bench-' || i || '/source.mp4',
           (array['standard','high','ultra'])[1 + i % 3], true, ${JSON.stringify(defaultEncodingParameters)}::jsonb,
           case when s.status = 'ready' then 10 + (i::bigint * 7919) % 3600 end,
           case when s.status = 'ready' then 1920 end, case when s.status = 'ready' then 1080 end, case when s.status = 'ready' then 30 end,
           now() - i * interval '90 seconds', now() - i * interval '90 seconds',
           case when s.status = 'ready' then now() - i * interval '90 seconds' end,
           case when i % 50 = 7 then now() end
    from generate_series(1, ${count}::int) i,
         lateral (select case when i % 100 < 90 then 'ready' when i % 100 < 97 then 'transcoding' else 'failed' end as status) s`.execute(
    db,
  );
}

/**
 * Every ready video of the environment has been watched: lists and details read a real `served`
 * figure for each (video_served_segments, the copy the rollup refresher keeps), not an empty table.
 */
export async function seedServed(db: Db, envId: string): Promise<void> {
  await sql`insert into video_served_segments (video_id, segments)
            select id, 1 + hashtext(id)::bigint % 100000 + 100000 from videos where env_id = ${envId} and status = 'ready'`.execute(
    db,
  );
}

/**
 * Index-only scans skip the table only on pages the visibility map marks all-visible. A VACUUM
 * cannot mark rows that a snapshot older than the bulk insert (an autovacuum ANALYZE that began
 * during it) may not see, so vacuum until the map covers the table, as autovacuum would in time.
 */
export async function vacuumUntilVisible(db: Db): Promise<void> {
  await waitFor(
    'the visibility map to cover videos',
    async () => {
      await sql`vacuum analyze videos`.execute(db);
      const { rows } = await sql<{ pages: number; visible: number }>`
        select relpages as pages, relallvisible as visible from pg_class where relname = 'videos'`.execute(db);
      return rows[0]!.visible >= rows[0]!.pages * 0.99;
    },
    { timeoutMs: 600_000, intervalMs: 1_000 },
  );
  await sql`vacuum analyze video_search`.execute(db);
  await sql`vacuum analyze video_served_segments`.execute(db);
}
