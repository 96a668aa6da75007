// Lists at a million videos: exact live counts per (environment, status) kept by triggers, and the
// pg_trgm extension the name search index needs. The list indexes themselves are built CONCURRENTLY
// after the migrations commit (concurrent-indexes.ts): an index build inside this transaction would
// block every write to a large videos table for as long as it runs.
// Migrations never import application code: the schema they make is frozen in time.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);

  await db.schema
    .createTable('video_counts')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('videos', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('video_counts_pk', ['env_id', 'status'])
    .execute();
  await db.schema.createIndex('video_counts_org_idx').on('video_counts').columns(['org_id', 'status']).execute();

  // Statement-level, with transition tables: a bulk insert of a million rows makes one upsert per
  // (environment, status), not a million. The rows are upserted in key order so two statements
  // touching the same keys lock them in the same order (no deadlock).
  await sql`
    create function video_counts_apply() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into video_counts (env_id, status, org_id, videos)
          select env_id, status, min(org_id), count(*) from new_rows where deleted_at is null
          group by env_id, status order by env_id, status
        on conflict (env_id, status) do update set videos = video_counts.videos + excluded.videos;
      elsif tg_op = 'DELETE' then
        insert into video_counts (env_id, status, org_id, videos)
          select env_id, status, min(org_id), -count(*) from old_rows where deleted_at is null
          group by env_id, status order by env_id, status
        on conflict (env_id, status) do update set videos = video_counts.videos + excluded.videos;
      else
        insert into video_counts (env_id, status, org_id, videos)
          select env_id, status, min(org_id), sum(delta) from (
            select env_id, status, org_id, 1 as delta from new_rows where deleted_at is null
            union all
            select env_id, status, org_id, -1 as delta from old_rows where deleted_at is null
          ) changes
          group by env_id, status having sum(delta) <> 0 order by env_id, status
        on conflict (env_id, status) do update set videos = video_counts.videos + excluded.videos;
      end if;
      return null;
    end $$`.execute(db);
  // A trigger with transition tables takes one event each.
  await sql`create trigger video_counts_insert after insert on videos referencing new table as new_rows
    for each statement execute function video_counts_apply()`.execute(db);
  await sql`create trigger video_counts_update after update on videos referencing old table as old_rows new table as new_rows
    for each statement execute function video_counts_apply()`.execute(db);
  await sql`create trigger video_counts_delete after delete on videos referencing old table as old_rows
    for each statement execute function video_counts_apply()`.execute(db);

  // Backfill, exact while writes continue: creating the triggers took a SHARE ROW EXCLUSIVE lock on
  // videos, held to this transaction's commit. Writers wait for it (reads do not); every write after
  // the commit goes through the triggers, every write before it is in this count. The wait is one
  // sequential count of the table (about a second at a million rows).
  await sql`
    insert into video_counts (env_id, status, org_id, videos)
    select env_id, status, min(org_id), count(*) from videos where deleted_at is null group by env_id, status`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const trigger of ['video_counts_insert', 'video_counts_update', 'video_counts_delete']) {
    await sql`drop trigger if exists ${sql.id(trigger)} on videos`.execute(db);
  }
  await sql`drop function if exists video_counts_apply()`.execute(db);
  await db.schema.dropTable('video_counts').ifExists().execute();
}
