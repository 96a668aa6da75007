// Migrations never import application code: the schema they make is frozen in time.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('environments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('environments_org_idx').on('environments').column('org_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('env_id', 'text', (c) => c.references('environments.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('environment', 'full', 'system')`))
    .addColumn('live', 'boolean', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .addCheckConstraint('api_keys_env_matches_type', sql`(type = 'environment') = (env_id is not null)`)
    .execute();

  await db.schema
    .createTable('uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('bucket_path', 'text', (c) => c.notNull().unique())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('videos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('transcoding', 'ready', 'failed')`))
    .addColumn('failure_reason', 'text')
    .addColumn('storage_path', 'text', (c) => c.notNull())
    .addColumn('video_quality', 'text', (c) => c.notNull().check(sql`video_quality in ('standard', 'high', 'ultra')`))
    .addColumn('allow_public_access', 'boolean', (c) => c.notNull())
    .addColumn('parameters', 'jsonb', (c) => c.notNull())
    .addColumn('duration_seconds', 'double precision')
    .addColumn('source_width', 'integer')
    .addColumn('source_height', 'integer')
    .addColumn('source_frame_rate', 'double precision')
    .addColumn('thumbnail_key', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('ready_at', 'timestamptz')
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('delete_reason', 'text')
    .execute();
  await db.schema.createIndex('videos_env_created_idx').on('videos').columns(['env_id', 'created_at']).execute();
  await db.schema.createIndex('videos_org_created_idx').on('videos').columns(['org_id', 'created_at']).execute();
  // At most one live (not deleted) video per uploaded object: the guard behind 409 processing_in_progress.
  await sql`create unique index videos_storage_path_live_idx on videos (storage_path) where deleted_at is null`.execute(
    db,
  );

  await db.schema
    .createTable('renditions')
    .addColumn('video_id', 'text', (c) => c.notNull().references('videos.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('short_edge_pixels', 'integer', (c) => c.notNull())
    .addColumn('short_edge_is_width', 'boolean', (c) => c.notNull())
    .addColumn('video_bitrate_kbps', 'integer', (c) => c.notNull())
    .addColumn('audio_bitrate_kbps', 'integer', (c) => c.notNull())
    .addColumn('audio_format', 'text', (c) => c.notNull())
    .addColumn('frame_rate', 'double precision', (c) => c.notNull())
    .addColumn('pixel_format', 'text', (c) => c.notNull())
    .addColumn('rate_control_mode', 'text', (c) => c.notNull())
    .addColumn('two_pass', 'boolean', (c) => c.notNull())
    .addColumn('compression_ratio', 'text', (c) => c.notNull())
    .addColumn('codecs', 'text', (c) => c.notNull())
    .addColumn('bandwidth', 'integer', (c) => c.notNull())
    .addColumn('segment_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('renditions_pk', ['video_id', 'key'])
    .execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'jsonb', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_counters_pk', ['scope', 'window_start'])
    .execute();

  await db.schema
    .createTable('encode_nodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('slots', 'integer', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('labels', 'jsonb', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('active', 'draining', 'gone')`))
    .addColumn('registered_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_heartbeat_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('node_leases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('node_id', 'text', (c) => c.notNull().references('encode_nodes.id').onDelete('cascade'))
    .addColumn('video_id', 'text', (c) => c.notNull())
    .addColumn('job', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('node_leases_node_idx').on('node_leases').column('node_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'node_leases',
    'encode_nodes',
    'rate_limit_counters',
    'webhooks',
    'renditions',
    'videos',
    'uploads',
    'api_keys',
    'environments',
    'organizations',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
