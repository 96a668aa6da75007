// Multipart uploads under an environment (docs/decisions/uploads.md#multipart-uploads): the upload-url
// ticket for large files, sent in parts straight to storage with presigned part URLs, so that a
// failure costs one part rather than the file, and an interrupted upload resumes from the parts
// storage holds. The completed object is at `bucketPath`, which `process` takes like any ticket's.
//   POST   .../uploads/multipart                      start (filename, fileSize, contentType, partSize?)
//   POST   .../uploads/multipart/{uploadId}/parts     presigned URLs for some part numbers
//   GET    .../uploads/multipart/{uploadId}/parts     the parts storage has received
//   POST   .../uploads/multipart/{uploadId}/complete  join the parts into the object
//   DELETE .../uploads/multipart/{uploadId}           abort
// This file: what the five routes share (the path, the open upload, its parts in storage, aborting).
import { Type } from '@sinclair/typebox';
import { NoSuchUploadError, type StoredPart } from '@kino/infra';
import { closeMultipartUpload, findMultipartUpload, type MultipartUpload } from '@kino/database/repositories';
import { clockOf, type ApiDeps } from '../../deps.ts';
import { ConflictError, NotFoundError, storageUnavailable } from '../../http/errors.ts';
import { EnvParams, Id } from '../../schemas/common.ts';
import { expectedPartSize } from '../../uploads/multipart-parts.ts';

export const multipartBase = '/:orgID/environments/:envID/uploads/multipart';

export const UploadParams = Type.Object({ ...EnvParams.properties, uploadId: Id });

export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The upload named in the path, open, for this organization and environment. */
export async function openUpload(
  deps: Pick<ApiDeps, 'db'>,
  params: { orgID: string; envID: string; uploadId: string },
  orgId: string,
  envId: string,
): Promise<MultipartUpload> {
  const upload = await findMultipartUpload(deps.db, { orgId, envId, uploadId: params.uploadId });
  if (!upload || upload.state === 'aborted')
    throw new NotFoundError('upload_not_found', `No open multipart upload ${params.uploadId} in this environment.`);
  if (upload.state === 'completed')
    throw new ConflictError(
      'upload_already_completed',
      `Upload ${params.uploadId} is complete: process its bucketPath.`,
    );
  return upload;
}

/** Aborts the upload: storage drops its parts, and the row is closed. */
export async function dropUpload(
  deps: Pick<ApiDeps, 'db' | 'storage' | 'now'>,
  upload: MultipartUpload,
  log: { error: (o: object, m: string) => void },
): Promise<void> {
  try {
    await deps.storage.abortMultipartUpload(upload.bucket_path, upload.storage_upload_id);
  } catch (error) {
    storageUnavailable(error, log, 'aborting a multipart upload');
  }
  await closeMultipartUpload(deps.db, upload.id, 'aborted', clockOf(deps)());
}

/** The parts storage holds, or not found when storage no longer has the upload. */
export async function storedParts(
  deps: Pick<ApiDeps, 'storage'>,
  upload: MultipartUpload,
  log: { error: (o: object, m: string) => void },
): Promise<StoredPart[]> {
  try {
    return await deps.storage.listParts(upload.bucket_path, upload.storage_upload_id);
  } catch (error) {
    if (error instanceof NoSuchUploadError)
      throw new NotFoundError('upload_not_found', `Storage no longer holds upload ${upload.id}.`);
    storageUnavailable(error, log, 'listing upload parts');
  }
}

/** The part numbers of `upload` that storage does not hold at their size (the last part holds what is left). */
export function partsWanting(
  upload: Pick<MultipartUpload, 'part_count' | 'part_size' | 'file_size'>,
  parts: StoredPart[],
): number[] {
  const byNumber = new Map(parts.map((part) => [part.partNumber, part]));
  const wanting: number[] = [];
  for (let partNumber = 1; partNumber <= upload.part_count; partNumber += 1) {
    if (byNumber.get(partNumber)?.size !== expectedPartSize(upload.file_size, upload.part_size, partNumber))
      wanting.push(partNumber);
  }
  return wanting;
}
