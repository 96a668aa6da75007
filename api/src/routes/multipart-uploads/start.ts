// `POST .../uploads/multipart`: a multipart upload started in storage, its part layout fixed.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newId } from '@kino/infra';
import { defaultUploadContentType, objectKeys } from '@kino/proto/contract';
import { createMultipartUpload } from '@kino/database/repositories';
import { clockOf, type RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { storageUnavailable, ValidationError } from '../../http/errors.ts';
import { EnvParams, Envelope, errorResponses, withExamples } from '../../schemas/common.ts';
import {
  MAX_PART_BYTES,
  MAX_PARTS,
  MIN_PART_BYTES,
  MULTIPART_UPLOAD_TTL_SECONDS,
  partLayout,
} from '../../uploads/multipart-parts.ts';
import { storageFileName } from '../../uploads/storage-file-name.ts';
import { uploadFileFields } from '../uploads.ts';
import { multipartBase, unixSeconds } from './common.ts';

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

export const startMultipartUploadRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    multipartBase,
    {
      config: {
        rateLimit: 'upload-url',
        validationCodes: {
          'body.fileSize': 'invalid_file_size',
          'body.contentType': 'unsupported_format',
          'body.partSize': 'invalid_part_size',
        },
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
        body: withExamples(CreateBody, {
          filename: 'keynote.mp4',
          fileSize: 2147483648,
          contentType: 'video/mp4',
          partSize: 16777216,
        }),
        response: {
          200: Envelope(MultipartUploadSchema, {
            uploadId: 'upl_Jq7Vn2Xc5Bd8Kp4M',
            bucketPath: 'uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4',
            partSize: 16777216,
            partCount: 128,
            expiresAt: 1795766400,
          }),
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
        throw new ValidationError(
          'invalid_part_size',
          `A part size of ${partSize} bytes cuts this file into ${partCount} parts; at most ${MAX_PARTS} are allowed.`,
          [
            {
              message: `must be at least ${Math.ceil(fileSize / MAX_PARTS)} for this fileSize`,
              location: 'body.partSize',
              value: partSize,
            },
          ],
        );
      }
      const uploadId = newId('upl');
      const bucketPath = objectKeys.upload(access.orgId, environment.id, uploadId, storageFileName(filename));
      const expiresAt = new Date(clockOf(deps)().getTime() + MULTIPART_UPLOAD_TTL_SECONDS * 1000);
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
};
