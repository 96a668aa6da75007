// Search at a million videos: `video_search`, a narrow copy of the live videos' listed columns with
// the name folded to lower case, kept by triggers on `videos` in the transaction of every write.
// A search's cost is one visit per match, to check the candidate the trigram index found and that it
// is visible: in `videos` (about 480 bytes a row) that visit reads a wide row and folds its name on
// the way (ILIKE); here it reads a row of about 120 bytes whose name is folded already (LIKE).
// The trigram index on `name_folded` is built CONCURRENTLY after this commits (concurrent-indexes.ts).
// Migrations never import application code: the schema they make is frozen in time.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('video_search')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('name_folded', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('duration_seconds', 'double precision')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();

  // Statement-level, with transition tables, like video_counts_apply: a bulk insert is one insert
  // here. A row is in video_search exactly while its video is live (deleted_at is null). Rows are
  // written in id order so two statements touching the same videos lock them in the same order.
  await sql`
    create function video_search_apply() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into video_search (id, org_id, env_id, name_folded, status, duration_seconds, created_at)
          select id, org_id, env_id, lower(name), status, duration_seconds, created_at from new_rows
          where deleted_at is null order by id;
      elsif tg_op = 'DELETE' then
        delete from video_search where id in (select id from old_rows);
      else
        -- A video's id never changes, so an update only ever removes the rows it soft-deletes.
        delete from video_search where id in (select id from new_rows where deleted_at is not null);
        insert into video_search (id, org_id, env_id, name_folded, status, duration_seconds, created_at)
          select id, org_id, env_id, lower(name), status, duration_seconds, created_at from new_rows
          where deleted_at is null order by id
        on conflict (id) do update set
          org_id = excluded.org_id, env_id = excluded.env_id, name_folded = excluded.name_folded, status = excluded.status,
          duration_seconds = excluded.duration_seconds, created_at = excluded.created_at
        -- Most updates of a video change nothing listed here (updated_at, storyboard_key, ...): no new row version.
        where (video_search.org_id, video_search.env_id, video_search.name_folded, video_search.status,
               video_search.duration_seconds, video_search.created_at)
          is distinct from (excluded.org_id, excluded.env_id, excluded.name_folded, excluded.status,
               excluded.duration_seconds, excluded.created_at);
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger video_search_insert after insert on videos referencing new table as new_rows
    for each statement execute function video_search_apply()`.execute(db);
  await sql`create trigger video_search_update after update on videos referencing old table as old_rows new table as new_rows
    for each statement execute function video_search_apply()`.execute(db);
  await sql`create trigger video_search_delete after delete on videos referencing old table as old_rows
    for each statement execute function video_search_apply()`.execute(db);

  // Backfill, exact while writes continue, as in 20261123T0300_video_list_scale: the triggers' lock
  // holds writers (not readers) until this commits. The wait is one copy of the live rows into a
  // table with no index but its key: about 3 s at a million videos (bench/api prints it).
  await sql`
    insert into video_search (id, org_id, env_id, name_folded, status, duration_seconds, created_at)
    select id, org_id, env_id, lower(name), status, duration_seconds, created_at from videos where deleted_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const trigger of ['video_search_insert', 'video_search_update', 'video_search_delete']) {
    await sql`drop trigger if exists ${sql.id(trigger)} on videos`.execute(db);
  }
  await sql`drop function if exists video_search_apply()`.execute(db);
  await db.schema.dropTable('video_search').ifExists().execute();
}
