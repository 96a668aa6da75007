// Multipart uploads under an environment (docs/decisions/uploads.md#multipart-uploads): the upload-url
// ticket for large files, sent in parts straight to storage with presigned part URLs, so that a
// failure costs one part rather than the file, and an interrupted upload resumes from the parts
// storage holds. The completed object is at `bucketPath`, which `process` takes like any ticket's.
//   POST   .../uploads/multipart                      start (filename, fileSize, contentType, partSize?)
//   POST   .../uploads/multipart/{uploadId}/parts     presigned URLs for some part numbers
//   GET    .../uploads/multipart/{uploadId}/parts     the parts storage has received
//   POST   .../uploads/multipart/{uploadId}/complete  join the parts into the object
//   DELETE .../uploads/multipart/{uploadId}           abort
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newId, NoSuchUploadError, type StoredPart } from '@kino/infra';
import { defaultUploadContentType, objectKeys } from '@kino/proto/contract';
import type { RouteOptions } from '../deps.ts';
import {
  closeMultipartUpload,
  createMultipartUpload,
  findMultipartUpload,
  type MultipartUpload,
} from '@kino/database/repositories';
import { accessOf } from '../plugins/access.ts';
import { uploadFileFields } from './uploads.ts';
import { BadRequestError, ConflictError, NotFoundError, storageUnavailable, ValidationError } from '../http/errors.ts';
import { EnvParams, Envelope, errorResponses, Id, withExamples } from '../schemas/common.ts';
import {
  expectedPartSize,
  MAX_PART_BYTES,
  MAX_PART_URLS_PER_CALL,
  MAX_PARTS,
  MIN_PART_BYTES,
  MULTIPART_UPLOAD_TTL_SECONDS,
  partLayout,
} from '../uploads/multipart-parts.ts';
import { sourceSizeProblem, UPLOAD_URL_TTL_SECONDS } from '../uploads/upload-limits.ts';
import { storageFileName } from '../uploads/storage-file-name.ts';

const CreateBody = Type.Object({
  ...uploadFileFields,
  partSize: Type.Optional(
    Type.Integer({
      minimum: MIN_PART_BYTES,
      maximum: MAX_PART_BYTES,
      description: `Bytes per part (the last may be shorter), 5 MiB to 5 GiB, at most ${MAX_PARTS} parts. Default 16 MiB, more for files that would need more parts.`,
    }),
  ),
});

const MultipartUploadSchema = Type.Object({
  uploadId: Type.String(),
  bucketPath: Type.String({ description: 'Pass it as storagePath to the process call once the upload is complete.' }),
  partSize: Type.Integer({ description: 'Bytes of every part but the last.' }),
  partCount: Type.Integer(),
  expiresAt: Type.Integer({ description: 'Unix time after which an upload not completed is aborted.' }),
});

const UploadParams = Type.Object({ orgID: Id, envID: Id, uploadId: Id });

const PartUrlsBody = Type.Object({
  partNumbers: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_PARTS }), {
    minItems: 1,
    maxItems: MAX_PART_URLS_PER_CALL,
    uniqueItems: true,
    description: `1-based part numbers, at most ${MAX_PART_URLS_PER_CALL} a call.`,
  }),
});

const PartUrlsSchema = Type.Object({
  parts: Type.Array(
    Type.Object({
      partNumber: Type.Integer(),
      signedURL: Type.String({ description: "PUT the part's bytes here, exactly partSize of them (the last part: what is left); valid 1 hour." }),
    }),
  ),
  expiresAt: Type.Integer({ description: 'Unix time at which these URLs expire.' }),
});

const PartsSchema = Type.Object({
  parts: Type.Array(Type.Object({ partNumber: Type.Integer(), size: Type.Integer(), etag: Type.String() })),
});

const CompletedSchema = Type.Object({
  bucketPath: Type.String({ description: 'Pass it as storagePath to the process call.' }),
  fileSize: Type.Integer(),
});

const AbortedSchema = Type.Object({ uploadId: Type.String(), status: Type.Literal('aborted') });

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Storage failed us: the client may try again shortly (a 503, which the SDK retries). */
export const multipartUploadRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const now = deps.now ?? (() => new Date());
  const base = '/:orgID/environments/:envID/uploads/multipart';

  /** The upload named in the path, open, for this organization and environment. */
  async function openUpload(params: { orgID: string; envID: string; uploadId: string }, orgId: string, envId: string): Promise<MultipartUpload> {
    const upload = await findMultipartUpload(deps.db, { orgId, envId, uploadId: params.uploadId });
    if (!upload || upload.state === 'aborted') throw new NotFoundError('upload_not_found', `No open multipart upload ${params.uploadId} in this environment.`);
    if (upload.state === 'completed') throw new ConflictError('upload_already_completed', `Upload ${params.uploadId} is complete: process its bucketPath.`);
    return upload;
  }

  app.post(
    base,
    {
      config: {
        rateLimit: 'upload-url',
        validationCodes: { 'body.fileSize': 'invalid_file_size', 'body.contentType': 'unsupported_format', 'body.partSize': 'invalid_part_size' },
      },
      schema: {
        tags: ['uploads'],
        summary: 'Start a multipart upload',
        operationId: 'createMultipartUpload',
        description:
          'For large files: the same limits as an upload URL, sent in parts to presigned URLs. ' +
          'An upload not completed within a day is aborted and its parts dropped. ' +
          'Errors: 400 invalid_file_size, unsupported_format, invalid_part_size; 404 environment_not_found.',
        params: EnvParams,
        body: withExamples(CreateBody, { filename: 'keynote.mp4', fileSize: 2147483648, contentType: 'video/mp4', partSize: 16777216 }),
        response: {
          200: Envelope(MultipartUploadSchema, { uploadId: 'upl_Jq7Vn2Xc5Bd8Kp4M', bucketPath: 'uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4', partSize: 16777216, partCount: 128, expiresAt: 1795766400 }),
          ...errorResponses(400, 404, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const environment = access.environment!;
      const { filename, fileSize } = request.body;
      const contentType = request.body.contentType ?? defaultUploadContentType;
      const { partSize, partCount } = partLayout(fileSize, request.body.partSize);
      if (partCount > MAX_PARTS) {
        throw new ValidationError('invalid_part_size', `A part size of ${partSize} bytes cuts this file into ${partCount} parts; at most ${MAX_PARTS} are allowed.`, [
          { message: `must be at least ${Math.ceil(fileSize / MAX_PARTS)} for this fileSize`, location: 'body.partSize', value: partSize },
        ]);
      }
      const uploadId = newId('upl');
      const bucketPath = objectKeys.upload(access.orgId, environment.id, uploadId, storageFileName(filename));
      const expiresAt = new Date(now().getTime() + MULTIPART_UPLOAD_TTL_SECONDS * 1000);
      let storageUploadId: string;
      try {
        storageUploadId = await deps.storage.createMultipartUpload(bucketPath, contentType);
      } catch (error) {
        storageUnavailable(error, request.log, 'starting a multipart upload');
      }
      await createMultipartUpload(deps.db, {
        id: uploadId,
        orgId: access.orgId,
        envId: environment.id,
        bucketPath,
        filename,
        contentType,
        fileSize,
        expiresAt,
        storageUploadId,
        partSize,
        partCount,
      });
      request.log.info({ uploadId, bucketPath, partCount }, 'multipart upload started');
      return { body: { uploadId, bucketPath, partSize, partCount, expiresAt: unixSeconds(expiresAt) } };
    },
  );

  app.post(
    `${base}/:uploadId/parts`,
    {
      config: { validationCodes: { 'body.partNumbers': 'invalid_part_number' } },
      schema: {
        tags: ['uploads'],
        summary: 'Presigned URLs for parts of a multipart upload',
        operationId: 'createMultipartUploadPartUrls',
        description: "PUT each part's bytes to its URL, then complete the upload. Errors: 400 invalid_part_number; 404 upload_not_found; 409 upload_already_completed.",
        params: UploadParams,
        body: withExamples(PartUrlsBody, { partNumbers: [1, 2] }),
        response: {
          200: Envelope(PartUrlsSchema, {
            parts: [
              { partNumber: 1, signedURL: 'https://storage.example.com/kino/uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4?partNumber=1&uploadId=…&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=…' },
              { partNumber: 2, signedURL: 'https://storage.example.com/kino/uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4?partNumber=2&uploadId=…&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=…' },
            ],
            expiresAt: 1795683600,
          }),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const upload = await openUpload(request.params, access.orgId, access.environment!.id);
      const beyond = request.body.partNumbers.filter((partNumber) => partNumber > upload.part_count);
      if (beyond.length > 0) {
        throw new ValidationError('invalid_part_number', `This upload has ${upload.part_count} parts, numbered from 1.`, [
          { message: `must be at most ${upload.part_count}`, location: 'body.partNumbers', value: beyond },
        ]);
      }
      const expiresAt = new Date(now().getTime() + UPLOAD_URL_TTL_SECONDS * 1000);
      let parts: Array<{ partNumber: number; signedURL: string }>;
      try {
        parts = await Promise.all(
          request.body.partNumbers.map(async (partNumber) => ({
            partNumber,
            signedURL: await deps.storage.presignUploadPart(
              upload.bucket_path,
              upload.storage_upload_id,
              partNumber,
              expectedPartSize(upload.file_size, upload.part_size, partNumber),
              UPLOAD_URL_TTL_SECONDS,
            ),
          })),
        );
      } catch (error) {
        storageUnavailable(error, request.log, 'presigning upload parts');
      }
      return { body: { parts, expiresAt: unixSeconds(expiresAt) } };
    },
  );

  /** Aborts the upload: storage drops its parts, and the row is closed. */
  async function dropUpload(upload: MultipartUpload, log: { error: (o: object, m: string) => void }): Promise<void> {
    try {
      await deps.storage.abortMultipartUpload(upload.bucket_path, upload.storage_upload_id);
    } catch (error) {
      storageUnavailable(error, log, 'aborting a multipart upload');
    }
    await closeMultipartUpload(deps.db, upload.id, 'aborted', now());
  }

  /** The parts storage holds, or not found when storage no longer has the upload. */
  async function storedParts(upload: MultipartUpload, log: { error: (o: object, m: string) => void }): Promise<StoredPart[]> {
    try {
      return await deps.storage.listParts(upload.bucket_path, upload.storage_upload_id);
    } catch (error) {
      if (error instanceof NoSuchUploadError) throw new NotFoundError('upload_not_found', `Storage no longer holds upload ${upload.id}.`);
      storageUnavailable(error, log, 'listing upload parts');
    }
  }

  app.get(
    `${base}/:uploadId/parts`,
    {
      schema: {
        tags: ['uploads'],
        summary: 'The parts of a multipart upload storage has received',
        operationId: 'listMultipartUploadParts',
        description: 'What a resumed upload need not send again. Errors: 404 upload_not_found; 409 upload_already_completed.',
        params: UploadParams,
        response: {
          200: Envelope(PartsSchema, {
            parts: [
              { partNumber: 1, size: 16777216, etag: '"9b2cf535f27731c974343645a3985328"' },
              { partNumber: 2, size: 16777216, etag: '"6f5902ac237024bdd0c176cb93063dc4"' },
            ],
          }),
          ...errorResponses(404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const upload = await openUpload(request.params, access.orgId, access.environment!.id);
      const parts = await storedParts(upload, request.log);
      return { body: { parts } };
    },
  );

  app.post(
    `${base}/:uploadId/complete`,
    {
      schema: {
        tags: ['uploads'],
        summary: 'Complete a multipart upload',
        operationId: 'completeMultipartUpload',
        description:
          'Joins the parts into the object at bucketPath, once every part has arrived at its size. ' +
          'Errors: 400 invalid_file_size (the whole above the limit: the upload is aborted); 404 upload_not_found; ' +
          '409 upload_incomplete (naming the parts missing), upload_already_completed.',
        params: UploadParams,
        response: { 200: Envelope(CompletedSchema, { bucketPath: 'uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4', fileSize: 2147483648 }), ...errorResponses(400, 404, 409, 503) },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const upload = await openUpload(request.params, access.orgId, access.environment!.id);
      const parts = await storedParts(upload, request.log);
      const byNumber = new Map(parts.map((part) => [part.partNumber, part]));
      const wanting: number[] = [];
      for (let partNumber = 1; partNumber <= upload.part_count; partNumber += 1) {
        if (byNumber.get(partNumber)?.size !== expectedPartSize(upload.file_size, upload.part_size, partNumber)) wanting.push(partNumber);
      }
      if (wanting.length > 0) {
        const shown = wanting.slice(0, 20).join(', ') + (wanting.length > 20 ? `, ... (${wanting.length} in all)` : '');
        throw new ConflictError('upload_incomplete', `Parts missing or not of their size: ${shown}.`);
      }
      // Every part at its size makes the declared size, so that is the total checked against the limit.
      const tooLarge = sourceSizeProblem(upload.file_size, deps.maxSourceBytes);
      if (tooLarge) {
        await dropUpload(upload, request.log);
        throw new BadRequestError('invalid_file_size', `${tooLarge}; the upload was aborted.`);
      }
      try {
        await deps.storage.completeMultipartUpload(upload.bucket_path, upload.storage_upload_id, parts.filter((part) => part.partNumber <= upload.part_count));
      } catch (error) {
        if (error instanceof NoSuchUploadError) throw new NotFoundError('upload_not_found', `Storage no longer holds upload ${upload.id}.`);
        storageUnavailable(error, request.log, 'completing a multipart upload');
      }
      await closeMultipartUpload(deps.db, upload.id, 'completed', now());
      request.log.info({ uploadId: upload.id, bucketPath: upload.bucket_path }, 'multipart upload completed');
      return { body: { bucketPath: upload.bucket_path, fileSize: upload.file_size } };
    },
  );

  app.delete(
    `${base}/:uploadId`,
    {
      schema: {
        tags: ['uploads'],
        summary: 'Abort a multipart upload',
        operationId: 'abortMultipartUpload',
        description: 'Storage drops the parts it received. Errors: 404 upload_not_found; 409 upload_already_completed.',
        params: UploadParams,
        response: { 200: Envelope(AbortedSchema, { uploadId: 'upl_Jq7Vn2Xc5Bd8Kp4M', status: 'aborted' }), ...errorResponses(404, 409, 503) },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const upload = await openUpload(request.params, access.orgId, access.environment!.id);
      await dropUpload(upload, request.log);
      return { body: { uploadId: upload.id, status: 'aborted' as const } };
    },
  );
};
