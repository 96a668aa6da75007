import type { Db } from '../database.ts';
import type { MultipartUploadRow, MultipartUploadState, Upload } from '../schema.ts';
import { createUpload, type CreateUploadInput } from './uploads.ts';

/** A multipart upload with its ticket: where it goes, for whom, and how it is cut into parts. */
export type MultipartUpload = Upload & Omit<MultipartUploadRow, 'upload_id'>;

export interface CreateMultipartUploadInput extends CreateUploadInput {
  storageUploadId: string;
  partSize: number;
  partCount: number;
}

/** Records the ticket and its multipart layout together (in the caller's transaction when `db` is one). */
export async function createMultipartUpload(db: Db, input: CreateMultipartUploadInput): Promise<MultipartUpload> {
  if (!db.isTransaction) return db.transaction().execute((trx) => createMultipartUpload(trx, input));
  const upload = await createUpload(db, input);
  const multipart = await db
    .insertInto('multipart_uploads')
    .values({
      upload_id: upload.id,
      storage_upload_id: input.storageUploadId,
      part_size: input.partSize,
      part_count: input.partCount,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const { upload_id: _uploadId, ...layout } = multipart;
  return { ...upload, ...layout };
}

function selectMultipartUploads(db: Db) {
  return db
    .selectFrom('multipart_uploads')
    .innerJoin('uploads', 'uploads.id', 'multipart_uploads.upload_id')
    .selectAll('uploads')
    .select([
      'multipart_uploads.storage_upload_id',
      'multipart_uploads.part_size',
      'multipart_uploads.part_count',
      'multipart_uploads.state',
      'multipart_uploads.closed_at',
    ]);
}

/** A multipart upload, only if it was started by this organization and environment. */
export async function findMultipartUpload(
  db: Db,
  { orgId, envId, uploadId }: { orgId: string; envId: string; uploadId: string },
): Promise<MultipartUpload | undefined> {
  return selectMultipartUploads(db)
    .where('uploads.id', '=', uploadId)
    .where('uploads.org_id', '=', orgId)
    .where('uploads.env_id', '=', envId)
    .executeTakeFirst();
}

/** Marks an open upload completed or aborted; false when it was no longer open (another call closed it). */
export async function closeMultipartUpload(
  db: Db,
  uploadId: string,
  state: Exclude<MultipartUploadState, 'open'>,
  at: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('multipart_uploads')
    .set({ state, closed_at: at })
    .where('upload_id', '=', uploadId)
    .where('state', '=', 'open')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Open uploads whose time ran out before `now`, oldest first: the sweep's work. */
export async function listExpiredMultipartUploads(db: Db, now: Date, limit: number): Promise<MultipartUpload[]> {
  return selectMultipartUploads(db)
    .where('multipart_uploads.state', '=', 'open')
    .where('uploads.expires_at', '<', now)
    .orderBy('uploads.expires_at')
    .limit(limit)
    .execute();
}
