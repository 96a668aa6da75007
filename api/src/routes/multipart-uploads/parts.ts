// `GET .../uploads/multipart/{uploadId}/parts`: the parts storage has received.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { multipartBase, openUpload, storedParts, UploadParams } from './common.ts';

const PartsSchema = Type.Object({
  parts: Type.Array(Type.Object({ partNumber: Type.Integer(), size: Type.Integer(), etag: Type.String() })),
});

export const multipartPartsRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    `${multipartBase}/:uploadId/parts`,
    {
      schema: {
        tags: ['uploads'],
        summary: 'The parts of a multipart upload storage has received',
        operationId: 'listMultipartUploadParts',
        description:
          'What a resumed upload need not send again. Errors: 404 upload_not_found; 409 upload_already_completed.',
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
      const upload = await openUpload(deps, request.params, access.orgId, access.environment!.id);
      const parts = await storedParts(deps, upload, request.log);
      return { body: { parts } };
    },
  );
};
