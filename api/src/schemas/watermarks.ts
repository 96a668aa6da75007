// The watermark of a process call, an ingest and an environment's default (issue 57), from the
// contract's bounds (@kino/proto/contract watermarks.ts): one schema for the three, and one check
// that its image is the environment's.
import { Type } from '@sinclair/typebox';
import { watermarkBounds, watermarkPositions, type Watermark, type WatermarkRequest } from '@kino/proto/contract';
import { findImage } from '@kino/database/repositories';
import type { ApiDeps } from '../deps.ts';
import { ValidationError } from '../http/errors.ts';
import { StringEnum, Text } from './common.ts';

const percentOf = (name: keyof typeof watermarkBounds, description: string) =>
  Type.Optional(Type.Number({ ...watermarkBounds[name], description }));

/** A watermark as a request gives it, the numbers may be left out (their defaults); `description` says where it is used. */
export const watermarkRequestSchema = (description: string) =>
  Type.Object(
    {
      imageId: Text({ minLength: 1, maxLength: 64, description: 'An image of the environment (POST .../images).' }),
      position: StringEnum(watermarkPositions),
      marginPercent: percentOf(
        'marginPercent',
        "The gap to the picture's edges: a share of its width (left, right) and height (top, bottom).",
      ),
      widthPercent: percentOf(
        'widthPercent',
        "The image's width as a share of the picture's; its height by its aspect.",
      ),
      opacity: percentOf('opacity', '1: opaque (the PNG’s own transparency still applies).'),
    },
    { additionalProperties: false, description },
  );

/** A watermark as the API answers it: every value, defaults applied. */
export const WatermarkSchema = Type.Object(
  {
    imageId: Type.String(),
    position: StringEnum(watermarkPositions),
    marginPercent: Type.Number(),
    widthPercent: Type.Number(),
    opacity: Type.Number(),
  },
  {
    description:
      "The image burnt into a video's renditions, its defaults applied (a video's: the call's, or its environment's default at processing).",
  },
);

export const exampleWatermark: Watermark = {
  imageId: 'img_2Lk9Qw7Xr4Tz1Vb8',
  position: 'top-right',
  marginPercent: 3,
  widthPercent: 12,
  opacity: 0.8,
};

/**
 * 400 `code` naming `body.watermark.imageId` when the organization's environment has no image of
 * that id: a reference in a body that names nothing is a bad value, as an unknown storagePath is.
 */
export async function assertWatermarkImage(
  deps: ApiDeps,
  { orgId, envId }: { orgId: string; envId: string },
  watermark: WatermarkRequest,
  code: string,
): Promise<void> {
  if (await findImage(deps.db, { orgId, envId, id: watermark.imageId })) return;
  const message = `imageId ${watermark.imageId} is no image of this environment: upload one with POST /{orgID}/environments/{envID}/images`;
  throw new ValidationError(code, message, [{ message, location: 'body.watermark.imageId', value: watermark.imageId }]);
}
