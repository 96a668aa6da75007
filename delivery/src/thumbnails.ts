// Thumbnails at any size: `/t/{id}/<w>x<h>.jpg` is a JPEG of exactly w×h pixels, made once from
// the video's default thumbnail (videos.thumbnail_key) by scaling it to cover the box and cropping
// the overflow around the centre (no letterbox bars), then kept in storage next to the source
// (`videos/{id}/thumbs/derived/<source hash>/<w>x<h>.jpg`, so a new default thumbnail gets new
// derived images) and in the node's local cache. Full-resolution chroma (4:4:4) so odd sizes
// stay exact (4:2:0 would round them down to even). Concurrent requests for one size share one
// ffmpeg run; at most two run at once per node. ffmpeg runs through the one wrapper (@kino/ffmpeg).
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { type Logger, type Storage } from '@kino/infra';
import { hlsContentTypes, objectKeys } from '@kino/proto/contract';
import { runFfmpeg, thumbnailArgs } from '@kino/ffmpeg';
import type { CachedObject, ObjectCache } from './object-cache.ts';
import type { PlayableVideo } from './video-catalog.ts';

const maxConcurrentRenders = 2;

export class ThumbnailMaker {
  private readonly inflight = new Map<string, Promise<CachedObject | undefined>>();
  private readonly renderSlot = pLimit(maxConcurrentRenders);

  constructor(
    private readonly cache: ObjectCache,
    private readonly storage: Pick<Storage, 'put'>,
    private readonly tmpDir: string,
    private readonly logger: Logger,
  ) {}

  /** The JPEG, or undefined when the video has no such thumbnail (`custom`: a custom thumbnail's id; absent: the default). */
  get(video: PlayableVideo, width: number, height: number, custom?: string): Promise<CachedObject | undefined> {
    const sourceKey = custom
      ? objectKeys.thumbnail(video.id, objectKeys.customThumbnailName(custom))
      : video.thumbnailKey;
    if (!sourceKey) return Promise.resolve(undefined);
    const sourceHash = createHash('sha256').update(sourceKey).digest('hex').slice(0, 12);
    const key = objectKeys.thumbnail(video.id, `derived/${sourceHash}/${width}x${height}.jpg`);
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.getOrMake(video, sourceKey, key, width, height).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async getOrMake(
    video: PlayableVideo,
    sourceKey: string,
    key: string,
    width: number,
    height: number,
  ): Promise<CachedObject | undefined> {
    const made = await this.cache.get(key);
    if (made) return made;
    const source = await this.cache.get(sourceKey);
    if (!source) return undefined;
    const data = await this.renderSlot(() => this.render(source.path, width, height));
    await this.storage.put(key, data, hlsContentTypes.thumbnail);
    this.logger.info({ videoId: video.id, width, height }, 'thumbnail made');
    return this.cache.put(key, data);
  }

  private async render(sourcePath: string, width: number, height: number): Promise<Buffer> {
    const out = join(this.tmpDir, `thumb-${randomBytes(8).toString('hex')}.jpg`);
    try {
      await runFfmpeg(thumbnailArgs({ input: sourcePath, timestampSeconds: 0, width, height, output: out }));
      return await readFile(out);
    } finally {
      await rm(out, { force: true });
    }
  }
}
