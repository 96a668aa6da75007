import { sql, type ExpressionBuilder } from 'kysely';
import { randomBase62 } from '@kino/infra';
import type { LiveStreamLatency, VideoQuality } from '@kino/proto/contract';
import type { Db } from '../database.ts';
import type { Database, LiveStream, Video } from '../schema.ts';
import { createVideo, type CreateVideoInput } from './videos.ts';

export function newLiveStreamId(): string {
  return `ls_${randomBase62(16)}`;
}

/** Whether an id names a live stream (newLiveStreamId) rather than a video: delivery's stream paths. */
export function isLiveStreamId(id: string): boolean {
  return id.startsWith('ls_');
}

/** What a stream is created with and may change (PATCH), beside its key. */
export interface LiveStreamSettings {
  name: string;
  allowPublicAccess: boolean;
  latency: LiveStreamLatency;
  videoQuality: VideoQuality | null;
  record: boolean;
  reconnectWindowSeconds: number;
}

/** The key as stored: its hash (the lookup) and the key sealed under the stream's id. */
export interface StoredStreamKey {
  hash: string;
  sealed: string;
}

export async function createLiveStream(
  db: Db,
  input: { id: string; orgId: string; envId: string; key: StoredStreamKey } & LiveStreamSettings,
): Promise<LiveStream> {
  return db
    .insertInto('live_streams')
    .values({
      id: input.id,
      org_id: input.orgId,
      env_id: input.envId,
      name: input.name,
      allow_public_access: input.allowPublicAccess,
      latency: input.latency,
      video_quality: input.videoQuality,
      record: input.record,
      reconnect_window_seconds: input.reconnectWindowSeconds,
      stream_key_hash: input.key.hash,
      stream_key_sealed: input.key.sealed,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function getLiveStream(db: Db, id: string): Promise<LiveStream | undefined> {
  return db.selectFrom('live_streams').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The stream a presented key opens (ingest's check), by the key's SHA-256. */
export async function findLiveStreamByKeyHash(db: Db, hash: string): Promise<LiveStream | undefined> {
  return db.selectFrom('live_streams').selectAll().where('stream_key_hash', '=', hash).executeTakeFirst();
}

/** A page of an environment's streams, newest first, and how many it has. */
export async function listLiveStreams(
  db: Db,
  { envId, page, pageSize }: { envId: string; page: number; pageSize: number },
): Promise<{ streams: LiveStream[]; total: number }> {
  const [streams, counted] = await Promise.all([
    db
      .selectFrom('live_streams')
      .selectAll()
      .where('env_id', '=', envId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('live_streams')
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .where('env_id', '=', envId)
      .executeTakeFirstOrThrow(),
  ]);
  return { streams, total: Number(counted.total) };
}

/** Changes the settings given; undefined when the stream is gone. */
export async function updateLiveStream(
  db: Db,
  id: string,
  changes: Partial<LiveStreamSettings>,
): Promise<LiveStream | undefined> {
  return db
    .updateTable('live_streams')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.allowPublicAccess !== undefined ? { allow_public_access: changes.allowPublicAccess } : {}),
      ...(changes.latency !== undefined ? { latency: changes.latency } : {}),
      ...(changes.videoQuality !== undefined ? { video_quality: changes.videoQuality } : {}),
      ...(changes.record !== undefined ? { record: changes.record } : {}),
      ...(changes.reconnectWindowSeconds !== undefined
        ? { reconnect_window_seconds: changes.reconnectWindowSeconds }
        : {}),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** A new key in place of the old, which stops opening the stream with this write. */
export async function replaceLiveStreamKey(db: Db, id: string, key: StoredStreamKey): Promise<LiveStream | undefined> {
  return db
    .updateTable('live_streams')
    .set({ stream_key_hash: key.hash, stream_key_sealed: key.sealed, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Disables (ingest refuses its key) or enables the stream; a second disable keeps the first time. */
export async function setLiveStreamDisabled(db: Db, id: string, disabled: boolean): Promise<LiveStream | undefined> {
  return db
    .updateTable('live_streams')
    .set({
      disabled_at: disabled ? sql<Date>`coalesce(disabled_at, now())` : null,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Whether a broadcast of the stream runs: one is recorded and the ingest holding it renewed its lease
 * in time (a lease of null: a broadcast started before leases, held until ended).
 */
export function isBroadcasting(
  stream: Pick<LiveStream, 'active_video_id' | 'active_until'>,
  now = new Date(),
): boolean {
  return stream.active_video_id !== null && (stream.active_until === null || stream.active_until > now);
}

/** SQL: no broadcast runs (none recorded, or its ingest's lease lapsed). */
const notBroadcasting = (eb: ExpressionBuilder<Database, 'live_streams'>) =>
  eb.or([eb('active_video_id', 'is', null), eb('active_until', '<', sql<Date>`now()`)]);

/** now() plus `ms` milliseconds, in SQL. */
const leaseEnd = (ms: number) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;

/**
 * Deletes the stream unless a broadcast runs (its recordings stay as videos). `deleted: false` with
 * the row: it is active; undefined: there was no such stream.
 */
export async function deleteIdleLiveStream(
  db: Db,
  id: string,
): Promise<{ deleted: true } | { deleted: false; stream: LiveStream } | undefined> {
  const deleted = await db
    .deleteFrom('live_streams')
    .where('id', '=', id)
    .where(notBroadcasting)
    .returning('id')
    .executeTakeFirst();
  if (deleted) return { deleted: true };
  const stream = await getLiveStream(db, id);
  return stream ? { deleted: false, stream } : undefined;
}

/**
 * Starts a broadcast (ingest, at a publisher's connect): its video, created in the stream's
 * environment, becomes the stream's active video in the same transaction. Undefined, and nothing
 * created, when the stream is gone, disabled or already broadcasting (a second publisher is refused).
 */
export async function startBroadcast(
  db: Db,
  input: {
    streamId: string;
    video: Omit<CreateVideoInput, 'orgId' | 'envId' | 'liveStreamId'>;
    /** How long the broadcast is held without a renewal (renewBroadcasts). */
    leaseMs: number;
  },
): Promise<{ stream: LiveStream; video: Video } | undefined> {
  return db.transaction().execute(async (trx) => {
    const stream = await trx
      .selectFrom('live_streams')
      .selectAll()
      .where('id', '=', input.streamId)
      .where('disabled_at', 'is', null)
      .where(notBroadcasting)
      .forUpdate()
      .executeTakeFirst();
    if (!stream) return undefined;
    const video = await createVideo(trx, {
      ...input.video,
      orgId: stream.org_id,
      envId: stream.env_id,
      liveStreamId: stream.id,
    });
    const started = await trx
      .updateTable('live_streams')
      .set({
        active_video_id: video.id,
        active_until: leaseEnd(input.leaseMs),
        // A broadcast whose ingest died (its lease lapsed) is over: it is the stream's last.
        ...(stream.active_video_id ? { last_video_id: stream.active_video_id } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', stream.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { stream: started, video };
  });
}

/**
 * Ends a broadcast: the stream is idle again and remembers the video as its last. Only while that
 * video is the active one, so a late end never clears a newer broadcast. Whether it ended it.
 */
export async function endBroadcast(db: Db, input: { streamId: string; videoId: string }): Promise<boolean> {
  const ended = await db
    .updateTable('live_streams')
    .set({ active_video_id: null, active_until: null, last_video_id: input.videoId, updated_at: sql<Date>`now()` })
    .where('id', '=', input.streamId)
    .where('active_video_id', '=', input.videoId)
    .executeTakeFirst();
  return ended.numUpdatedRows > 0n;
}

/**
 * Ends every broadcast whose lease has lapsed (its ingest died: nothing renews it, nothing will end
 * it), as endBroadcast ends one: the stream idle, the video its last. One statement, so of several
 * ingests sweeping at once each broadcast is ended, and answered, by exactly one: the caller sends
 * what a clean end sends (`live_stream.idle`) for each it gets. A broadcast held without a lease
 * (started before leases) is left alone.
 */
export async function endLapsedBroadcasts(db: Db): Promise<{ streamId: string; videoId: string }[]> {
  const ended = await db
    .updateTable('live_streams')
    // SET reads the row as it was: the active video becomes the last.
    .set({
      last_video_id: sql<string>`active_video_id`,
      active_video_id: null,
      active_until: null,
      updated_at: sql<Date>`now()`,
    })
    .where('active_video_id', 'is not', null)
    .where('active_until', '<', sql<Date>`now()`)
    .returning(['id', 'last_video_id'])
    .execute();
  return ended.map((row) => ({ streamId: row.id, videoId: row.last_video_id! }));
}

/**
 * Renews the lease of each broadcast an ingest holds (its key watch, every few seconds), while it is
 * still its stream's running one. An ingest that stops renewing lets its streams go idle at the lease's end.
 */
export async function renewBroadcasts(
  db: Db,
  held: readonly { streamId: string; videoId: string }[],
  leaseMs: number,
): Promise<void> {
  if (held.length === 0) return;
  await db
    .updateTable('live_streams')
    .set({ active_until: leaseEnd(leaseMs) })
    .where((eb) => eb.or(held.map((b) => eb.and([eb('id', '=', b.streamId), eb('active_video_id', '=', b.videoId)]))))
    .execute();
}

/** The streams of these ids that exist (ingest's watch over the broadcasts it holds). */
export async function getLiveStreams(db: Db, ids: readonly string[]): Promise<LiveStream[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('live_streams').selectAll().where('id', 'in', ids).execute();
}

/**
 * The video a stream's own playback path plays (delivery, issue 56): its broadcast running, else its
 * last one; undefined when it has had none (or there is no such stream).
 */
export async function findLiveStreamVideo(db: Db, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('live_streams')
    .select(['active_video_id', 'last_video_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.active_video_id ?? row?.last_video_id ?? undefined;
}
