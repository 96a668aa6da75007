// What the delivery node needs to know about a video, read from the metadata database and kept in
// memory for a short time (DELIVERY_METADATA_TTL_MS, 2 s by default): a deleted video stops
// playing within that time on every node, without the control plane having to reach them.
// Only ready, not deleted videos are playable; anything else reads as "no such video".
// Concurrent lookups of one video share one query.
import type { Db } from '@kino/control-plane/db';
import { findPlayableVideo, listRenditions } from '@kino/control-plane/repositories';

export interface PlayableRendition {
  /** `720p` */
  key: string;
  height: number;
  segmentCount: number;
}

export interface PlayableVideo {
  id: string;
  orgId: string;
  envId: string;
  allowPublicAccess: boolean;
  thumbnailKey: string | null;
  /** The storyboard's WebVTT, when processing made one. */
  storyboardKey: string | null;
  /** By key; iteration order is lowest first. */
  renditions: Map<string, PlayableRendition>;
}

const maxEntries = 50_000;

export class VideoCatalog {
  private readonly entries = new Map<string, { video: PlayableVideo | undefined; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<PlayableVideo | undefined>>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
  ) {}

  get(videoId: string): Promise<PlayableVideo | undefined> {
    const entry = this.entries.get(videoId);
    if (entry && entry.expiresAt > Date.now()) return Promise.resolve(entry.video);
    let pending = this.inflight.get(videoId);
    if (!pending) {
      pending = this.load(videoId)
        .then((video) => {
          if (this.entries.size >= maxEntries) this.entries.clear();
          this.entries.set(videoId, { video, expiresAt: Date.now() + this.ttlMs });
          return video;
        })
        .finally(() => this.inflight.delete(videoId));
      this.inflight.set(videoId, pending);
    }
    return pending;
  }

  private async load(videoId: string): Promise<PlayableVideo | undefined> {
    const row = await findPlayableVideo(this.db, videoId);
    if (!row) return undefined;
    const renditions = await listRenditions(this.db, videoId);
    const sorted = renditions
      .map((r) => ({ key: r.key, height: Number.parseInt(r.key, 10), segmentCount: r.segment_count }))
      .filter((r) => Number.isInteger(r.height))
      .sort((a, b) => a.height - b.height);
    return {
      id: row.id,
      orgId: row.org_id,
      envId: row.env_id,
      allowPublicAccess: row.allow_public_access,
      thumbnailKey: row.thumbnail_key,
      storyboardKey: row.storyboard_key,
      renditions: new Map(sorted.map((r) => [r.key, r])),
    };
  }
}
