// POST /{orgID}/environments/{envID}/videos/upload-url: a presigned PUT straight to storage, valid
// one hour, at uploads/{org}/{env}/{uploadId}/{filename}. The Content-Type and the declared fileSize
// (as Content-Length) are part of the signature, so storage refuses a PUT of another type or size:
// the size limit checked here holds for what is stored. The ticket is recorded: `process` accepts
// only paths handed out here to the same organization and environment.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newId } from '@kino/infra';
import { defaultUploadContentType, objectKeys, uploadContentTypes } from '@kino/proto/contract';
import type { RouteOptions } from '../deps.ts';
import { createUpload } from '@kino/database/repositories';
import { accessOf } from '../plugins/access.ts';
import { storageUnavailable } from '../errors.ts';
import { EnvParams, Envelope, errorResponses, StringEnum, Text } from '../schemas/common.ts';
import { MAX_UPLOAD_BYTES, storageFileName, UPLOAD_URL_TTL_SECONDS } from '../video-parameters.ts';

/** The file an upload is for: the fields of an upload URL request, and of a multipart upload's start. */
export const uploadFileFields = {
  filename: Text({ minLength: 1, maxLength: 255, description: 'Original file name.' }),
  fileSize: Type.Integer({ minimum: 1, maximum: MAX_UPLOAD_BYTES, description: 'Bytes; at most 5 GB.' }),
  contentType: Type.Optional(StringEnum(uploadContentTypes, { default: defaultUploadContentType })),
};

const UploadUrlBody = Type.Object(uploadFileFields);

const UploadTicket = Type.Object({
  signedURL: Type.String({ description: 'PUT the file here with the same Content-Type and exactly fileSize bytes; valid 1 hour.' }),
  bucketPath: Type.String({ description: 'Pass it as storagePath to the process call.' }),
  expiresAt: Type.Integer({ description: 'Unix time at which signedURL expires.' }),
});

export const uploadRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const now = deps.now ?? (() => new Date());

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
        params: EnvParams,
        body: UploadUrlBody,
        response: { 200: Envelope(UploadTicket), ...errorResponses(400, 404) },
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
