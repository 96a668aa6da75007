// A video's watermark on a node (EncodeRequest.watermark): checked, its image fetched through its
// presigned GET into the job's directory as a source is read, and laid over every picture rendition
// of the encode (@kino/ffmpeg videoFilterGraph sizes it for each rung).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Watermark__Output } from '@kino/proto';
import { imageHeaderOf, imageMaxBytes, watermarkBounds, watermarkPositions } from '@kino/proto/contract';
import type { WatermarkOverlay } from '@kino/ffmpeg';
import { InvalidRequestError, InvalidSourceError, StorageUnavailableError, UrlRefusedError } from './errors.ts';
import type { HlsPlan } from './hls-plan.ts';

/** The request's watermark, refused (InvalidRequestError) when a value is out of its bounds: the API applied them. */
export function checkWatermark(watermark: Watermark__Output): void {
  if (!watermark.imageUrl) throw new InvalidRequestError('watermark.image_url is empty');
  if (!(watermarkPositions as readonly string[]).includes(watermark.position))
    throw new InvalidRequestError(
      `watermark.position "${watermark.position}" is not one of ${watermarkPositions.join(', ')}`,
    );
  for (const name of ['marginPercent', 'widthPercent', 'opacity'] as const) {
    const { minimum, maximum } = watermarkBounds[name];
    const value = watermark[name];
    if (!(value >= minimum && value <= maximum))
      throw new InvalidRequestError(`watermark.${name} ${value} is not between ${minimum} and ${maximum}`);
  }
}

/**
 * Fetches the watermark's image into `jobDir` and answers the overlay the renditions draw. A 4xx is
 * final (a refused URL presigns again; a missing image is the video's fault, as a missing source
 * is); a network failure or a 5xx is worth a retry.
 */
export async function fetchWatermark(
  watermark: Watermark__Output,
  jobDir: string,
  signal: AbortSignal,
): Promise<WatermarkOverlay> {
  checkWatermark(watermark);
  let response: Response;
  try {
    response = await fetch(watermark.imageUrl, { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new StorageUnavailableError(`could not fetch the watermark image: ${(error as Error).message}`);
  }
  if (response.status === 403) throw new UrlRefusedError('storage refused the watermark image URL (HTTP 403)');
  if (response.status >= 400 && response.status < 500)
    throw new InvalidSourceError(`the watermark image is not in storage (HTTP ${response.status})`);
  if (!response.ok)
    throw new StorageUnavailableError(`storage answered HTTP ${response.status} for the watermark image`);
  const image = Buffer.from(await response.arrayBuffer());
  if (image.length > imageMaxBytes || !imageHeaderOf(image))
    throw new InvalidSourceError('the watermark image is not a PNG or JPEG of at most 2 MB');
  const imageFile = join(jobDir, 'watermark');
  await writeFile(imageFile, image);
  const { position, marginPercent, widthPercent, opacity } = watermark;
  return { imageFile, position: position as WatermarkOverlay['position'], marginPercent, widthPercent, opacity };
}

/** The plan with the watermark laid over each rendition that has a picture. */
export function withWatermark(plan: HlsPlan, watermark: WatermarkOverlay | undefined): HlsPlan {
  if (!watermark) return plan;
  return {
    ...plan,
    renditions: plan.renditions.map((r) =>
      r.settings.audioOnly ? r : { ...r, settings: { ...r.settings, watermark } },
    ),
  };
}

/** The plan of an encode with the request's watermark, its image fetched into `jobDir`; as it is without one. */
export async function watermarkedPlan(
  plan: HlsPlan,
  watermark: Watermark__Output | null,
  jobDir: string,
  signal: AbortSignal,
): Promise<HlsPlan> {
  if (!watermark || plan.renditions.every((r) => r.settings.audioOnly)) return plan;
  return withWatermark(plan, await fetchWatermark(watermark, jobDir, signal));
}
