// The same migrations on PGlite (the embedded default) and PostgreSQL: the same schema results, and
// the queries the API relies on (upserts, ILIKE with escapes, jsonb, partial unique index) behave alike.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { newId } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import {
  createApiKey,
  createEnvironment,
  createOrganization,
  countLiveVideos,
  createVideo,
  findActiveApiKey,
  incrementRateLimitCounters,
  isUniqueViolation,
  listVideos,
  markVideoDeleted,
  markVideoFailed,
  undoVideoDeleted,
} from '@kino/database/repositories';
import {
  CONCURRENT_INDEX_BUILD_LOCK,
  concurrentIndexes,
  migrateToLatest,
  migrations,
  openDatabase,
  type Db,
} from '@kino/database';
import { openPgliteDatabase } from '@kino/database/testing';
import { defaultEncodingParameters } from '@kino/proto/contract';

let services: TestServices;
const databases: Record<'pglite' | 'postgres', Db> = {} as Record<'pglite' | 'postgres', Db>;

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  databases.pglite = await openPgliteDatabase();
  databases.postgres = await openDatabase(services.databaseUrl);
});

afterAll(async () => {
  await databases.pglite?.destroy();
  await databases.postgres?.destroy();
  await services?.stop();
});

/** Tables, columns (with types and nullability), indexes and constraints of the public schema (NOT NULL
 * constraints are left to the columns' nullability: PostgreSQL 18, which PGlite is, also lists them as constraints). */
async function describeSchema(db: Db) {
  const columns = await sql<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
    column_default: string | null;
  }>`
    select table_name, column_name, data_type, is_nullable, column_default
    from information_schema.columns where table_schema = 'public'
    order by table_name, column_name`.execute(db);
  const indexes = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes where schemaname = 'public' order by indexname`.execute(db);
  const constraints = await sql<{ conname: string; definition: string }>`
    select conname, pg_get_constraintdef(oid) as definition from pg_constraint
    where connamespace = 'public'::regnamespace and contype <> 'n' order by conname`.execute(db);
  return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows };
}

for (const engine of ['pglite', 'postgres'] as const) {
  describe(`migrations on ${engine}`, () => {
    it('apply every migration, and again without change', async () => {
      const db = databases[engine];
      await migrateToLatest(db);
      await migrateToLatest(db);
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
      assert.deepEqual(
        applied.rows.map((r) => r.name),
        Object.keys(migrations).sort(),
      );
    });

    it('give a schema the API works on: keys, counters, search, the one-live-video-per-upload guard', async () => {
      const db = databases[engine];
      const org = await createOrganization(db, { name: `${engine} org` });
      const env = await createEnvironment(db, { orgId: org.id, name: 'production' });
      const { apiKey, record } = await createApiKey(db, {
        orgId: org.id,
        envId: env.id,
        type: 'environment',
        live: false,
      });
      assert.equal((await findActiveApiKey(db, apiKey))?.id, record.id);

      const windowStart = new Date('2031-01-01T00:00:00Z');
      const scopes = [
        { scope: `organization:${org.id}:general:3600`, windowStart },
        { scope: `key:${record.id}:uploadUrlPerKey:60`, windowStart },
      ];
      assert.deepEqual([...(await incrementRateLimitCounters(db, scopes)).values()], [1, 1]);
      assert.deepEqual([...(await incrementRateLimitCounters(db, scopes)).values()], [2, 2]);
      // The counters commit without waiting for the WAL flush, for their own transaction only: the
      // session (a pooled connection other queries reuse) keeps its setting.
      await db.connection().execute(async (connection) => {
        await sql`set synchronous_commit = on`.execute(connection);
        assert.deepEqual([...(await incrementRateLimitCounters(connection, scopes)).values()], [3, 3]);
        const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(connection);
        assert.equal(rows[0]?.synchronous_commit, 'on');
        await sql`reset synchronous_commit`.execute(connection);
      });

      const storagePath = `uploads/${org.id}/${env.id}/upl_x/a.mp4`;
      const base = {
        orgId: org.id,
        envId: env.id,
        storagePath,
        videoQuality: 'high' as const,
        allowPublicAccess: true,
        parameters: defaultEncodingParameters,
      };
      await createVideo(db, { ...base, id: newId('vid'), name: '50% OFF sale' });
      await assert.rejects(createVideo(db, { ...base, id: newId('vid'), name: 'duplicate' }), (error) =>
        isUniqueViolation(error),
      );
      await createVideo(db, { ...base, storagePath: `${storagePath}.2`, id: newId('vid'), name: '500 OFF' });
      const found = await listVideos(db, {
        orgId: org.id,
        page: 1,
        pageSize: 10,
        sortBy: 'name',
        sortDir: 'asc',
        search: '0%',
      });
      assert.deepEqual(
        found.videos.map((v) => v.name),
        ['50% OFF sale'],
      );
      assert.equal(found.total, 1);
      assert.deepEqual(found.videos[0]?.parameters, defaultEncodingParameters);
    });

    it('keep video_counts and video_search equal to the live rows through inserts, status moves, renames, soft and hard deletes', async () => {
      const db = databases[engine];
      const org = await createOrganization(db, { name: `${engine} counted org` });
      const envs = [
        await createEnvironment(db, { orgId: org.id, name: 'a' }),
        await createEnvironment(db, { orgId: org.id, name: 'b' }),
      ];
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const id = newId('vid');
        ids.push(id);
        await createVideo(db, {
          id,
          orgId: org.id,
          envId: envs[i % 2]!.id,
          name: `v${i}`,
          storagePath: `uploads/${org.id}/${id}`,
          videoQuality: 'standard',
          allowPublicAccess: true,
          parameters: defaultEncodingParameters,
        });
      }
      // One statement moving several rows across statuses and environments, a soft delete, a hard delete.
      await db.updateTable('videos').set({ status: 'ready' }).where('id', 'in', ids.slice(0, 3)).execute();
      await db.updateTable('videos').set({ env_id: envs[0]!.id }).where('id', '=', ids[3]!).execute();
      await markVideoFailed(db, ids[4]!, 'no video stream');
      await markVideoDeleted(db, ids[0]!, null);
      await db.deleteFrom('videos').where('id', '=', ids[5]!).execute();
      await db
        .updateTable('videos')
        .set({ name: 'Ünïcode KEYNOTE', duration_seconds: 12.5 })
        .where('id', '=', ids[1]!)
        .execute();
      // Deleted, then back (a delete whose clean-up could not start is undone).
      await markVideoDeleted(db, ids[2]!, null);
      await undoVideoDeleted(db, ids[2]!);
      const mirrored = await db
        .selectFrom('video_search')
        .selectAll()
        .where('org_id', '=', org.id)
        .orderBy('id')
        .execute();
      const live = await db
        .selectFrom('videos')
        .select([
          'id',
          'org_id',
          'env_id',
          sql<string>`lower(name)`.as('name_folded'),
          'status',
          'duration_seconds',
          'created_at',
        ])
        .where('org_id', '=', org.id)
        .where('deleted_at', 'is', null)
        .orderBy('id')
        .execute();
      assert.deepEqual(mirrored, live);
      assert.deepEqual(
        mirrored.map((r) => r.id),
        [ids[1], ids[2], ids[3], ids[4]].sort(),
      );
      assert.equal(mirrored.find((r) => r.id === ids[1])?.name_folded, 'ünïcode keynote');
      for (const envId of [...envs.map((e) => e.id), undefined]) {
        for (const status of [undefined, 'transcoding', 'ready', 'failed'] as const) {
          let rows = db.selectFrom('videos').where('org_id', '=', org.id).where('deleted_at', 'is', null);
          if (envId) rows = rows.where('env_id', '=', envId);
          if (status) rows = rows.where('status', '=', status);
          const { count } = await rows.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
          assert.equal(
            await countLiveVideos(db, { orgId: org.id, envId, status }),
            Number(count),
            `${envId ?? 'org'} ${status ?? 'any'}`,
          );
        }
      }
      assert.equal(await countLiveVideos(db, { orgId: org.id }), 4);
    });
  });
}

describe('the concurrently built indexes on PostgreSQL', () => {
  const indexState = async (name: string) =>
    (
      await sql<{
        valid: boolean;
      }>`select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name}`.execute(
        databases.postgres,
      )
    ).rows[0];

  it('are built again when missing or left invalid, by the one process holding the build lock', async () => {
    const db = databases.postgres;
    await migrateToLatest(db);
    const [first, second] = concurrentIndexes;
    await sql`drop index ${sql.id(first!.name)}`.execute(db);
    // An index a killed build left behind: present, not valid.
    await sql`update pg_index set indisvalid = false where indexrelid = ${second!.name}::regclass`.execute(db);
    const other = await openDatabase(services.databaseUrl);
    try {
      // While another process holds the lock, this one goes on without building.
      await other.connection().execute(async (connection) => {
        await sql`select pg_advisory_lock(${CONCURRENT_INDEX_BUILD_LOCK})`.execute(connection);
        await migrateToLatest(db);
        assert.equal(await indexState(first!.name), undefined);
        await sql`select pg_advisory_unlock(${CONCURRENT_INDEX_BUILD_LOCK})`.execute(connection);
      });
    } finally {
      await other.destroy();
    }
    await migrateToLatest(db);
    assert.deepEqual(await indexState(first!.name), { valid: true });
    assert.deepEqual(await indexState(second!.name), { valid: true });
  });

  it('drop an index a new shape replaced', async () => {
    const db = databases.postgres;
    await migrateToLatest(db);
    // The search index of videos, before video_search.
    await sql`create index videos_live_name_trgm_idx on videos using gin (name gin_trgm_ops) where deleted_at is null`.execute(
      db,
    );
    assert.deepEqual(await indexState('videos_live_name_trgm_idx'), { valid: true });
    await migrateToLatest(db);
    assert.equal(await indexState('videos_live_name_trgm_idx'), undefined);
  });
});

describe('PGlite and PostgreSQL', () => {
  it('end with the same schema', async () => {
    const [embedded, server] = await Promise.all([
      describeSchema(databases.pglite),
      describeSchema(databases.postgres),
    ]);
    assert.ok(embedded.columns.length > 50);
    assert.deepEqual(embedded.columns, server.columns);
    assert.deepEqual(embedded.indexes, server.indexes);
    assert.deepEqual(embedded.constraints, server.constraints);
  });
});
