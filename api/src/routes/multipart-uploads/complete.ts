// `POST .../uploads/multipart/{uploadId}/complete`: the parts joined into the object, once all arrived.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoSuchUploadError } from '@kino/infra';
import { closeMultipartUpload } from '@kino/database/repositories';
import { clockOf, type RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { BadRequestError, ConflictError, NotFoundError, storageUnavailable } from '../../http/errors.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { sourceSizeProblem } from '../../uploads/upload-limits.ts';
import { dropUpload, multipartBase, openUpload, partsWanting, storedParts, UploadParams } from './common.ts';

const CompletedSchema = Type.Object({
  bucketPath: Type.String({ description: 'Pass it as storagePath to the process call.' }),
  fileSize: Type.Integer(),
});

export const completeMultipartUploadRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    `${multipartBase}/:uploadId/complete`,
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
        response: {
          200: Envelope(CompletedSchema, {
            bucketPath: 'uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4',
            fileSize: 2147483648,
          }),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const upload = await openUpload(deps, request.params, access.orgId, access.environment!.id);
      const parts = await storedParts(deps, upload, request.log);
      const wanting = partsWanting(upload, parts);
      if (wanting.length > 0) {
        const shown = wanting.slice(0, 20).join(', ') + (wanting.length > 20 ? `, ... (${wanting.length} in all)` : '');
        throw new ConflictError('upload_incomplete', `Parts missing or not of their size: ${shown}.`);
      }
      // Every part at its size makes the declared size, so that is the total checked against the limit.
      const tooLarge = sourceSizeProblem(upload.file_size, deps.maxSourceBytes);
      if (tooLarge) {
        await dropUpload(deps, upload, request.log);
        throw new BadRequestError('invalid_file_size', `${tooLarge}; the upload was aborted.`);
      }
      try {
        await deps.storage.completeMultipartUpload(
          upload.bucket_path,
          upload.storage_upload_id,
          parts.filter((part) => part.partNumber <= upload.part_count),
        );
      } catch (error) {
        if (error instanceof NoSuchUploadError)
          throw new NotFoundError('upload_not_found', `Storage no longer holds upload ${upload.id}.`);
        storageUnavailable(error, request.log, 'completing a multipart upload');
      }
      await closeMultipartUpload(deps.db, upload.id, 'completed', clockOf(deps)());
      request.log.info({ uploadId: upload.id, bucketPath: upload.bucket_path }, 'multipart upload completed');
      return { body: { bucketPath: upload.bucket_path, fileSize: upload.file_size } };
    },
  );
};
