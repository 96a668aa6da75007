// Thumbnail: one JPEG frame at a timestamp, read by ffmpeg from the source's presigned GET, uploaded
// through its presigned PUT. Short: it takes no slot.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ThumbnailRequest__Output, ThumbnailResult } from '@kino/proto';
import { hlsContentTypes } from '@kino/proto/contract';
import { runFfmpeg, thumbnailArgs } from '@kino/ffmpeg';
import { toneMapOf } from '../encode-settings.ts';
import { InvalidRequestError, TimestampOutOfRangeError } from '../errors.ts';
import { withJobDir } from '../job-dir.ts';
import { jpegSize } from '../jpeg-size.ts';
import { uploadFile } from '../upload.ts';

export interface ThumbnailJobOptions {
  request: ThumbnailRequest__Output;
  workDir: string;
  signal: AbortSignal;
  logger: Logger;
}

export async function runThumbnailJob({
  request,
  workDir,
  signal,
  logger,
}: ThumbnailJobOptions): Promise<ThumbnailResult> {
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
  if (!request.outputUrl) throw new InvalidRequestError('output_url is required');
  if (!(request.timestampSeconds >= 0)) throw new InvalidRequestError('timestamp_seconds must be 0 or more');
  if (request.width < 0 || request.height < 0 || request.width > 8192 || request.height > 8192) {
    throw new InvalidRequestError(`thumbnail size ${request.width}x${request.height} is out of range`);
  }
  return withJobDir(workDir, request.jobId, 'thumb', async (jobDir) => {
    const output = join(jobDir, 'thumbnail.jpg');
    await runFfmpeg(
      thumbnailArgs({
        input: request.inputUrl,
        timestampSeconds: request.timestampSeconds,
        width: request.width,
        height: request.height,
        output,
        ...toneMapOf(request.dynamicRange),
      }),
      { signal, logger },
    );
    const jpeg = await readFile(output).catch(() => undefined);
    if (!jpeg || jpeg.length === 0) {
      throw new TimestampOutOfRangeError(`no frame at ${request.timestampSeconds} s (past the end of the video?)`);
    }
    const size = jpegSize(jpeg) ?? { width: 0, height: 0 };
    await uploadFile(output, request.outputUrl, hlsContentTypes.thumbnail, signal);
    return { width: size.width, height: size.height, bytes: jpeg.length };
  });
}
