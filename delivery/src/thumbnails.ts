// Thumbnails at any size: `/t/{id}/<w>x<h>.jpg` (or `.png`, `.webp`) is a picture of exactly w×h
// pixels, made once from the video's default thumbnail (videos.thumbnail_key) by scaling it to
// cover the box and cropping the overflow around the centre (no letterbox bars), then kept in
// storage next to the source (`videos/{id}/thumbs/derived/<source hash>/<w>x<h>.jpg`, so a new
// default thumbnail gets new derived images) and in the node's local cache. With `?time=`, the
// frame at that moment instead, decoded from the video's uploaded source (a clip's from its
// original, from where the clip starts in it) through a presigned URL, exact to the frame, and
// kept the same way (`derived/at/<milliseconds>/<w>x<h>.<format>`). Full-resolution chroma (4:4:4)
// so odd sizes stay exact (4:2:0 would round them down to even). Concurrent requests for one
// picture share one ffmpeg run; at most two run at once per node. ffmpeg runs through the one
// wrapper (@kino/ffmpeg).
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { type Logger, type Storage } from '@kino/infra';
import { hlsContentTypes, objectKeys } from '@kino/proto/contract';
import { animatedPreviewArgs, runFfmpeg, thumbnailArgs, type AnimatedFormat, type PictureFormat } from '@kino/ffmpeg';
import type { HdrDynamicRange } from '@kino/proto/contract';
import type { CachedObject, ObjectCache } from './object-cache.ts';
import type { PlayableVideo } from './video-catalog.ts';

const maxConcurrentRenders = 2;

/** Where a video's frames of any moment are decoded from (findPictureSource, with a presigned URL). */
export interface PictureSource {
  /** A URL ffmpeg reads the source from, with range requests. */
  url: string;
  /** Where the video's time 0 is in the source. */
  offsetSeconds: number;
  durationSeconds: number | null;
  toneMapFrom?: HdrDynamicRange;
}

export interface PictureRequest {
  width: number;
  height: number;
  format: PictureFormat;
}

export class ThumbnailMaker {
  private readonly inflight = new Map<string, Promise<CachedObject | undefined>>();
  private readonly renderSlot = pLimit(maxConcurrentRenders);

  private readonly cache: ObjectCache;
  private readonly storage: Pick<Storage, 'put'>;
  private readonly tmpDir: string;
  private readonly logger: Logger;
  private readonly sources: (videoId: string) => Promise<PictureSource | undefined>;
  constructor(
    cache: ObjectCache,
    storage: Pick<Storage, 'put'>,
    tmpDir: string,
    logger: Logger,
    /** Where a video's frames of any moment come from; undefined when its source is gone. */
    sources: (videoId: string) => Promise<PictureSource | undefined>,
  ) {
    this.cache = cache;
    this.storage = storage;
    this.tmpDir = tmpDir;
    this.logger = logger;
    this.sources = sources;
  }

  sourceOf(video: PlayableVideo): Promise<PictureSource | undefined> {
    return this.sources(video.id);
  }

  /**
   * The thumbnail at the asked size and format, or undefined when the video has no such thumbnail
   * (`custom`: a custom thumbnail's id; absent: the default).
   */
  get(video: PlayableVideo, picture: PictureRequest, custom?: string): Promise<CachedObject | undefined> {
    const sourceKey = custom
      ? objectKeys.thumbnail(video.id, objectKeys.customThumbnailName(custom))
      : video.thumbnailKey;
    if (!sourceKey) return Promise.resolve(undefined);
    const sourceHash = createHash('sha256').update(sourceKey).digest('hex').slice(0, 12);
    const key = objectKeys.thumbnail(video.id, `derived/${sourceHash}/${pictureName(picture)}`);
    return this.once(key, async () => {
      const source = await this.cache.get(sourceKey);
      return source && this.make(video, key, picture, { input: source.path, timestampSeconds: 0 });
    });
  }

  /** The frame at `timeSeconds` of the video (`source`: where it is decoded from), at the asked size and format. */
  at(video: PlayableVideo, source: PictureSource, timeSeconds: number, picture: PictureRequest): Promise<CachedObject> {
    const milliseconds = Math.round(timeSeconds * 1000);
    const key = objectKeys.thumbnail(video.id, `derived/at/${milliseconds}/${pictureName(picture)}`);
    return this.once(key, () =>
      this.make(video, key, picture, {
        input: source.url,
        timestampSeconds: source.offsetSeconds + milliseconds / 1000,
        ...(source.toneMapFrom ? { toneMapFrom: source.toneMapFrom } : {}),
      }),
    ) as Promise<CachedObject>;
  }

  /** A looping preview of a stretch of the video (`source`: where it is decoded from). */
  animated(
    video: PlayableVideo,
    source: PictureSource,
    { startSeconds, endSeconds, width, fps }: { startSeconds: number; endSeconds: number; width: number; fps: number },
    format: AnimatedFormat,
  ): Promise<CachedObject> {
    const start = Math.round(startSeconds * 1000);
    const end = Math.round(endSeconds * 1000);
    const key = objectKeys.thumbnail(video.id, `derived/animated/${start}-${end}/${width}w-${fps}fps.${format}`);
    return this.once(key, () =>
      this.render(video, key, format, {
        input: source.url,
        startSeconds: source.offsetSeconds + start / 1000,
        durationSeconds: (end - start) / 1000,
        width,
        fps,
        format,
        ...(source.toneMapFrom ? { toneMapFrom: source.toneMapFrom } : {}),
      }),
    ) as Promise<CachedObject>;
  }

  /** Concurrent requests for one picture share one run. */
  private once(key: string, make: () => Promise<CachedObject | undefined>): Promise<CachedObject | undefined> {
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.cache
        .get(key)
        .then((made) => made ?? make())
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private make(
    video: PlayableVideo,
    key: string,
    { width, height, format }: PictureRequest,
    from: { input: string; timestampSeconds: number; toneMapFrom?: HdrDynamicRange },
  ): Promise<CachedObject> {
    return this.render(video, key, format, { ...from, width, height, format });
  }

  /** One ffmpeg run in a render slot, its output kept in storage and the cache. */
  private async render(
    video: PlayableVideo,
    key: string,
    format: PictureFormat | AnimatedFormat,
    args:
      Omit<Parameters<typeof thumbnailArgs>[0], 'output'> | Omit<Parameters<typeof animatedPreviewArgs>[0], 'output'>,
  ): Promise<CachedObject> {
    const out = join(this.tmpDir, `picture-${randomBytes(8).toString('hex')}.${format}`);
    const data = await this.renderSlot(async () => {
      try {
        await runFfmpeg(
          'timestampSeconds' in args
            ? thumbnailArgs({ ...args, output: out })
            : animatedPreviewArgs({ ...args, output: out }),
        );
        return await readFile(out);
      } finally {
        await rm(out, { force: true });
      }
    });
    await this.storage.put(key, data, pictureContentTypes[format]);
    this.logger.info({ videoId: video.id, key }, 'picture made');
    return this.cache.put(key, data);
  }
}

export const pictureContentTypes: Record<PictureFormat | AnimatedFormat, string> = {
  jpg: hlsContentTypes.thumbnail,
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
};

const pictureName = ({ width, height, format }: PictureRequest) => `${width}x${height}.${format}`;
