// `DELETE .../uploads/multipart/{uploadId}`: the upload aborted, its parts dropped.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { dropUpload, multipartBase, openUpload, UploadParams } from './common.ts';

const AbortedSchema = Type.Object({ uploadId: Type.String(), status: Type.Literal('aborted') });

export const abortMultipartUploadRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.delete(
    `${multipartBase}/:uploadId`,
    {
      schema: {
        tags: ['uploads'],
        summary: 'Abort a multipart upload',
        operationId: 'abortMultipartUpload',
        description: 'Storage drops the parts it received. Errors: 404 upload_not_found; 409 upload_already_completed.',
        params: UploadParams,
        response: {
          200: Envelope(AbortedSchema, { uploadId: 'upl_Jq7Vn2Xc5Bd8Kp4M', status: 'aborted' }),
          ...errorResponses(404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const upload = await openUpload(deps, request.params, access.orgId, access.environment!.id);
      await dropUpload(deps, upload, request.log);
      return { body: { uploadId: upload.id, status: 'aborted' as const } };
    },
  );
};
