// POST /{orgID}/environments/{envID}/videos/upload-url: a presigned PUT straight to storage, valid
// one hour, at uploads/{org}/{env}/{uploadId}/{filename}. The Content-Type and the declared fileSize
// (as Content-Length) are part of the signature, so storage refuses a PUT of another type or size:
// the size limit checked here holds for what is stored. The ticket is recorded: `process` accepts
// only paths handed out here to the same organization and environment.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newId } from '@kino/infra';
import { defaultUploadContentType, objectKeys, uploadContentTypes } from '@kino/proto/contract';
import { clockOf, type RouteOptions } from '../deps.ts';
import { createUpload } from '@kino/database/repositories';
import { accessOf } from '../plugins/access.ts';
import { storageUnavailable } from '../http/errors.ts';
import { EnvParams, Envelope, errorResponses, StringEnum, Text, withExamples } from '../schemas/common.ts';
import { MAX_UPLOAD_BYTES } from '@kino/proto/contract';
import { storageFileName } from '../uploads/storage-file-name.ts';
import { UPLOAD_URL_TTL_SECONDS } from '../uploads/upload-limits.ts';

/** The file an upload is for: the fields of an upload URL request, and of a multipart upload's start. */
export const uploadFileFields = {
  filename: Text({ minLength: 1, maxLength: 255, description: 'Original file name.' }),
  fileSize: Type.Integer({ minimum: 1, maximum: MAX_UPLOAD_BYTES, description: 'Bytes; at most 5 GB.' }),
  contentType: Type.Optional(StringEnum(uploadContentTypes, { default: defaultUploadContentType })),
};

const UploadUrlBody = Type.Object(uploadFileFields);

const UploadTicket = Type.Object({
  signedURL: Type.String({
    description: 'PUT the file here with the same Content-Type and exactly fileSize bytes; valid 1 hour.',
  }),
  bucketPath: Type.String({ description: 'Pass it as storagePath to the process call.' }),
  expiresAt: Type.Integer({ description: 'Unix time at which signedURL expires.' }),
});

export const uploadRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const now = clockOf(deps);

  app.post(
    '/:orgID/environments/:envID/videos/upload-url',
    {
      config: {
        rateLimit: 'upload-url',
        validationCodes: { 'body.fileSize': 'invalid_file_size', 'body.contentType': 'unsupported_format' },
      },
      schema: {
        tags: ['uploads'],
        summary: 'Request a signed upload URL',
        operationId: 'createUploadUrl',
        description:
          'A presigned PUT straight to storage, valid one hour, for one file of at most 5 GB: PUT it with the same Content-Type ' +
          'and exactly fileSize bytes, then pass bucketPath to `videos/process`. For large files, a multipart upload resumes. ' +
          'Errors: 400 invalid_file_size, unsupported_format; 404 environment_not_found.',
        params: EnvParams,
        body: withExamples(UploadUrlBody, { filename: 'keynote.mp4', fileSize: 22807333, contentType: 'video/mp4' }),
        response: {
          200: Envelope(UploadTicket, {
            signedURL:
              'https://storage.example.com/kino/uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=…',
            bucketPath: 'uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4',
            expiresAt: 1795683600,
          }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const environment = access.environment!;
      const { filename, fileSize } = request.body;
      const contentType = request.body.contentType ?? defaultUploadContentType;
      const uploadId = newId('upl');
      const bucketPath = objectKeys.upload(access.orgId, environment.id, uploadId, storageFileName(filename));
      const expiresAt = new Date(now().getTime() + UPLOAD_URL_TTL_SECONDS * 1000);

      let signedURL: string;
      try {
        signedURL = await deps.storage.presignPut(bucketPath, UPLOAD_URL_TTL_SECONDS, contentType, fileSize);
      } catch (error) {
        storageUnavailable(error, request.log, 'presigning an upload');
      }
      await createUpload(deps.db, {
        id: uploadId,
        orgId: access.orgId,
        envId: environment.id,
        bucketPath,
        filename,
        contentType,
        fileSize,
        expiresAt,
      });
      request.log.info({ uploadId, bucketPath }, 'upload URL issued');
      return { body: { signedURL, bucketPath, expiresAt: Math.floor(expiresAt.getTime() / 1000) } };
    },
  );
};
