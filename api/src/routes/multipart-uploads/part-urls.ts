// `POST .../uploads/multipart/{uploadId}/parts`: presigned URLs for some part numbers.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clockOf, type RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { storageUnavailable, ValidationError } from '../../http/errors.ts';
import { Envelope, errorResponses, withExamples } from '../../schemas/common.ts';
import { expectedPartSize, MAX_PART_URLS_PER_CALL, MAX_PARTS } from '../../uploads/multipart-parts.ts';
import { UPLOAD_URL_TTL_SECONDS } from '../../uploads/upload-limits.ts';
import { multipartBase, openUpload, unixSeconds, UploadParams } from './common.ts';

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
      signedURL: Type.String({
        description: "PUT the part's bytes here, exactly partSize of them (the last part: what is left); valid 1 hour.",
      }),
    }),
  ),
  expiresAt: Type.Integer({ description: 'Unix time at which these URLs expire.' }),
});

export const multipartPartUrlRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    `${multipartBase}/:uploadId/parts`,
    {
      config: { validationCodes: { 'body.partNumbers': 'invalid_part_number' } },
      schema: {
        tags: ['uploads'],
        summary: 'Presigned URLs for parts of a multipart upload',
        operationId: 'createMultipartUploadPartUrls',
        description:
          "PUT each part's bytes to its URL, then complete the upload. Errors: 400 invalid_part_number; 404 upload_not_found; 409 upload_already_completed.",
        params: UploadParams,
        body: withExamples(PartUrlsBody, { partNumbers: [1, 2] }),
        response: {
          200: Envelope(PartUrlsSchema, {
            parts: [
              {
                partNumber: 1,
                signedURL:
                  'https://storage.example.com/kino/uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4?partNumber=1&uploadId=…&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=…',
              },
              {
                partNumber: 2,
                signedURL:
                  'https://storage.example.com/kino/uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4?partNumber=2&uploadId=…&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=…',
              },
            ],
            expiresAt: 1795683600,
          }),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const upload = await openUpload(deps, request.params, access.orgId, access.environment!.id);
      const beyond = request.body.partNumbers.filter((partNumber) => partNumber > upload.part_count);
      if (beyond.length > 0) {
        throw new ValidationError(
          'invalid_part_number',
          `This upload has ${upload.part_count} parts, numbered from 1.`,
          [{ message: `must be at most ${upload.part_count}`, location: 'body.partNumbers', value: beyond }],
        );
      }
      const expiresAt = new Date(clockOf(deps)().getTime() + UPLOAD_URL_TTL_SECONDS * 1000);
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
};
