// Images of an environment (issue 57, docs/decisions/encoding.md#watermarks): POST
// /{orgID}/environments/{envID}/images takes a PNG or JPEG of at most 2 MB as base64 in the JSON
// body, checks it is one (its header, its size), stores it at objectKeys.image(id) and answers its
// id, which a watermark names. The body goes to the API itself, unlike a source's upload URL: the
// file is small, and the caller learns at once whether it is a picture Kino can draw.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newId } from '@kino/infra';
import {
  imageContentTypes,
  imageFormats,
  imageHeaderOf,
  imageMaxBytes,
  imageMaxEdge,
  objectKeys,
} from '@kino/proto/contract';
import { createImage } from '@kino/database/repositories';
import type { Image } from '@kino/database';
import type { RouteOptions } from '../deps.ts';
import { accessOf } from '../plugins/access.ts';
import { PayloadTooLargeError, storageUnavailable, ValidationError } from '../http/errors.ts';
import { Envelope, EnvParams, errorResponses, StringEnum, TEXT_PATTERN, withExamples } from '../schemas/common.ts';

const CreateBody = Type.Object(
  {
    content: Type.String({
      minLength: 1,
      pattern: TEXT_PATTERN,
      description: `The image's bytes in base64: a PNG or JPEG of at most ${imageMaxBytes} bytes (2 MB).`,
    }),
  },
  { additionalProperties: false },
);

export const ImageSchema = Type.Object({
  imageId: Type.String(),
  format: StringEnum(imageFormats),
  width: Type.Integer(),
  height: Type.Integer(),
  sizeBytes: Type.Integer(),
  createdAt: Type.String(),
});

function presentImage(image: Image): Static<typeof ImageSchema> {
  return {
    imageId: image.id,
    format: image.format,
    width: image.width,
    height: image.height,
    sizeBytes: image.size_bytes,
    createdAt: image.created_at.toISOString(),
  };
}

/** Base64 of 2 MB is 4/3 of it; JSON adds little around one string. */
const bodyLimit = Math.ceil((imageMaxBytes * 4) / 3) + 64 * 1024;

function invalidImage(message: string): never {
  throw new ValidationError('invalid_image', message, [{ message, location: 'body.content', value: null }]);
}

export const imageRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/environments/:envID/images',
    {
      bodyLimit,
      config: { rateLimit: 'video', validationCodes: { 'body.content': 'invalid_image' } },
      schema: {
        tags: ['images'],
        summary: 'Upload an image (a watermark)',
        operationId: 'createImage',
        description:
          'Stores a PNG or JPEG of at most 2 MB, sent as base64, and answers its id: a `watermark` of a process or ingest call, ' +
          "or the environment's default, names it. Errors: 400 invalid_image (not a PNG or JPEG, or an edge over " +
          `${imageMaxEdge} px); 413 payload_too_large (over 2 MB).`,
        params: EnvParams,
        body: withExamples(CreateBody, { content: 'iVBORw0KGgoAAAANSUhEUgAA…' }),
        response: {
          200: Envelope(ImageSchema, {
            imageId: 'img_2Lk9Qw7Xr4Tz1Vb8',
            format: 'png',
            width: 400,
            height: 120,
            sizeBytes: 18342,
            createdAt: '2026-12-03T05:00:00.000Z',
          }),
          ...errorResponses(400, 404, 413, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const envId = access.environment!.id;
      const bytes = Buffer.from(request.body.content, 'base64');
      if (bytes.length > imageMaxBytes) throw new PayloadTooLargeError(`An image is at most ${imageMaxBytes} bytes.`);
      const header = imageHeaderOf(bytes) ?? invalidImage('content is not a PNG or JPEG image (base64 of its bytes)');
      if (!(header.width > 0 && header.height > 0 && Math.max(header.width, header.height) <= imageMaxEdge)) {
        invalidImage(`the image is ${header.width}x${header.height}: each edge must be 1 to ${imageMaxEdge} px`);
      }
      const id = newId('img');
      try {
        await deps.storage.put(objectKeys.image(id), bytes, imageContentTypes[header.format]);
      } catch (error) {
        storageUnavailable(error, request.log, 'storing an image');
      }
      const image = await createImage(deps.db, {
        id,
        org_id: access.orgId,
        env_id: envId,
        format: header.format,
        width: header.width,
        height: header.height,
        size_bytes: bytes.length,
      });
      request.log.info({ imageId: id, envId, ...header, sizeBytes: bytes.length }, 'image stored');
      return { body: presentImage(image) };
    },
  );
};
