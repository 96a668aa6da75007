// One JPEG frame at a timestamp, uploaded through its presigned PUT.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ThumbnailRequest__Output, ThumbnailResult } from '@kino/proto';
import { hlsContentTypes } from '@kino/proto/contract';
import { runFfmpeg, thumbnailArgs } from '@kino/ffmpeg';
import { InvalidRequestError, TimestampOutOfRangeError } from './errors.ts';
import { makeJobDir } from './job-dir.ts';
import { uploadFile } from './upload.ts';

export interface ThumbnailJobOptions {
  request: ThumbnailRequest__Output;
  workDir: string;
  signal: AbortSignal;
  logger: Logger;
}

/** Width and height from a JPEG's start-of-frame marker. */
export function jpegSize(data: Buffer): { width: number; height: number } | undefined {
  let offset = 2; // after SOI
  while (offset + 9 < data.length) {
    if (data[offset] !== 0xff) return undefined;
    const marker = data[offset + 1]!;
    const length = data.readUInt16BE(offset + 2);
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: data.readUInt16BE(offset + 5), width: data.readUInt16BE(offset + 7) };
    }
    offset += 2 + length;
  }
  return undefined;
}

export async function runThumbnailJob({ request, workDir, signal, logger }: ThumbnailJobOptions): Promise<ThumbnailResult> {
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
  if (!request.outputUrl) throw new InvalidRequestError('output_url is required');
  if (!(request.timestampSeconds >= 0)) throw new InvalidRequestError('timestamp_seconds must be 0 or more');
  if (request.width < 0 || request.height < 0 || request.width > 8192 || request.height > 8192) {
    throw new InvalidRequestError(`thumbnail size ${request.width}x${request.height} is out of range`);
  }
  const jobDir = await makeJobDir(workDir, request.jobId, 'thumb');
  try {
    const output = join(jobDir, 'thumbnail.jpg');
    await runFfmpeg(
      thumbnailArgs({ input: request.inputUrl, timestampSeconds: request.timestampSeconds, width: request.width, height: request.height, output }),
      { signal, logger },
    );
    const jpeg = await readFile(output).catch(() => undefined);
    if (!jpeg || jpeg.length === 0) {
      throw new TimestampOutOfRangeError(`no frame at ${request.timestampSeconds} s (past the end of the video?)`);
    }
    const size = jpegSize(jpeg) ?? { width: 0, height: 0 };
    await uploadFile(output, request.outputUrl, hlsContentTypes.thumbnail, signal);
    return { width: size.width, height: size.height, bytes: jpeg.length };
  } finally {
    await rm(jobDir, { recursive: true, force: true });
  }
}
