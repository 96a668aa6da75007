import type { Db } from '../database.ts';
import type { Upload } from '../schema.ts';

export interface CreateUploadInput {
  id: string;
  orgId: string;
  envId: string;
  bucketPath: string;
  filename: string;
  contentType: string;
  fileSize: number;
  expiresAt: Date;
}

export async function createUpload(db: Db, input: CreateUploadInput): Promise<Upload> {
  return db
    .insertInto('uploads')
    .values({
      id: input.id,
      org_id: input.orgId,
      env_id: input.envId,
      bucket_path: input.bucketPath,
      filename: input.filename,
      content_type: input.contentType,
      file_size: input.fileSize,
      expires_at: input.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The upload ticket for a storage path, only if it was handed out to this organization and environment. */
export async function findUpload(
  db: Db,
  { orgId, envId, bucketPath }: { orgId: string; envId: string; bucketPath: string },
): Promise<Upload | undefined> {
  return db
    .selectFrom('uploads')
    .selectAll()
    .where('bucket_path', '=', bucketPath)
    .where('org_id', '=', orgId)
    .where('env_id', '=', envId)
    .executeTakeFirst();
}

/** An upload the originals sweep has to settle: whether a live video was made from its original. */
export interface UnsettledUpload {
  id: string;
  bucket_path: string;
  processed: boolean;
}

/**
 * Uploads whose ticket expired before `expiredBefore` and that no sweep has settled, oldest first.
 * An open multipart upload is left to the multipart sweep, which aborts it.
 */
export async function listUnsettledUploads(db: Db, expiredBefore: Date, limit: number): Promise<UnsettledUpload[]> {
  const rows = await db
    .selectFrom('uploads')
    .select(['uploads.id', 'uploads.bucket_path'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('videos')
            .select('videos.id')
            .whereRef('videos.storage_path', '=', 'uploads.bucket_path')
            .where('videos.deleted_at', 'is', null),
        )
        .as('processed'),
    )
    .where('uploads.settled_at', 'is', null)
    .where('uploads.expires_at', '<', expiredBefore)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('multipart_uploads')
            .select('multipart_uploads.upload_id')
            .whereRef('multipart_uploads.upload_id', '=', 'uploads.id')
            .where('multipart_uploads.state', '=', 'open'),
        ),
      ),
    )
    .orderBy('uploads.expires_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, processed: Boolean(row.processed) }));
}

/** Marks uploads settled by the originals sweep. */
export async function markUploadsSettled(db: Db, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('uploads').set({ settled_at: at }).where('id', 'in', ids).execute();
}
