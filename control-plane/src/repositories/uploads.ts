import type { Db } from '../db/database.ts';
import type { Upload } from '../db/schema.ts';

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
