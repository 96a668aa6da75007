// What the delivery node needs to know about a video, read from the metadata database and kept in
// memory for a short time (DELIVERY_METADATA_TTL_MS, 2 s by default): a deleted video stops
// playing within that time on every node, without the control plane having to reach them.
// Only ready, not deleted videos are playable; anything else reads as "no such video".
// Concurrent lookups of one video share one query, and a video in use is read again in the
// background during the last quarter of its entry's life, so a busy video's requests never wait
// on the database (the entry still ends on time: a deleted video stops within the TTL).
import type { Db, Rendition } from '@kino/database';
import { isAlternateAudioKey, type MasterAudio, type VideoCodec } from '@kino/proto/contract';
import type { ClipMedia } from './paths.ts';
import {
  findLiveStreamVideo,
  findPlayableVideo,
  isLiveStreamId,
  listCaptionTracks,
  listReadyAudioTracks,
  listRenditions,
  type ReadyAudioTrack,
} from '@kino/database/repositories';

export interface PlayableRendition {
  /** `720p`; `720p-av1`, `720p-hevc` for a rendition in another codec. */
  key: string;
  height: number;
  videoCodec: VideoCodec;
  segmentCount: number;
  /** Its measured peak and average bits per second (the master's rates for an added audio track). */
  bandwidth: number;
  averageBandwidth: number;
}

export interface PlayableVideo {
  id: string;
  orgId: string;
  envId: string;
  /** The video's name (the embed page's title). */
  name: string;
  /** The source's display size, when probed (oEmbed's width and height keep its aspect ratio). */
  width: number | null;
  height: number | null;
  allowPublicAccess: boolean;
  thumbnailKey: string | null;
  /** The storyboard's WebVTT, when processing made one. */
  storyboardKey: string | null;
  /** `audio.m4a` (objectKeys.audioDownload), when the video has sound and processing made it. */
  audioKey: string | null;
  /**
   * By key; iteration order is lowest first, H.264 before other codecs at one height, and alternate
   * audio renditions (`0p-a1`: no picture) last, so the first is always the lowest H.264 rung
   * (`video/init.m4s`, the captions' segment durations).
   */
  renditions: Map<string, PlayableRendition>;
  /**
   * The audio tracks added to the video once ready, in language order: the master's audio group
   * gains them when it is served (docs/decisions/encoding.md#audio).
   */
  addedAudio: MasterAudio[];
  /** Caption tracks by language, in language order (the master playlist's subtitles group). */
  captions: Map<string, PlayableCaptionTrack>;
  /** A clip's media (paths.ts mediaKeyOf). Null for other videos. The clip's playlists are its own objects. */
  clipMedia: ClipMedia | null;
  /**
   * Ready with segments still being made (just in time): a segment missing from storage is made on
   * request (segment-waits.ts), and the playlists are read past the cache (they are written again
   * once the ladder is complete).
   */
  segmentsPending: boolean;
  /**
   * The stored master to serve: null for the one processing wrote; the second master of a video
   * whose sound was muxed in its pictures once a track added to it separated them
   * (docs/decisions/encoding.md#audio).
   */
  masterKey: string | null;
  /**
   * A broadcast being recorded (issue 56): its playlists grow (read past the cache, kept for a
   * second), and a segment not stored yet is not there yet, never made on request.
   */
  live: boolean;
}

export interface PlayableCaptionTrack {
  language: string;
  label: string;
  isDefault: boolean;
  /** The whole WebVTT file; a new key for every upload, so cached copies never go stale. */
  storageKey: string;
}

const maxEntries = 50_000;

export class VideoCatalog {
  /** `readAt`: the number of the read that made the entry (reads are numbered as they start): an older read never replaces a newer one. */
  private readonly entries = new Map<string, { video: PlayableVideo | undefined; expiresAt: number; readAt: number }>();
  private readonly inflight = new Map<string, Promise<PlayableVideo | undefined>>();
  private reads = 0;

  private readonly read: (videoId: string) => Promise<PlayableVideo | undefined>;
  private readonly ttlMs: number;
  constructor(
    /** Reads one video from the metadata database (`readPlayableVideo`). */
    read: (videoId: string) => Promise<PlayableVideo | undefined>,
    ttlMs: number,
  ) {
    this.read = read;
    this.ttlMs = ttlMs;
  }

  get(videoId: string): Promise<PlayableVideo | undefined> {
    const entry = this.entries.get(videoId);
    const now = Date.now();
    if (entry && entry.expiresAt > now) {
      if (entry.expiresAt - now < this.ttlMs / 4) this.load(videoId).catch(() => undefined); // a failure leaves the entry to expire
      return Promise.resolve(entry.video);
    }
    return this.load(videoId);
  }

  /**
   * The video as the database has it now (its entry replaced): after it changed under a waiting
   * request, or for a file that must show a change made just before it (routes/context.ts
   * currentVideo). A read of its own: one already under way may have begun before the change.
   */
  async fresh(videoId: string): Promise<PlayableVideo | undefined> {
    const readAt = ++this.reads;
    const video = await this.read(videoId);
    this.store(videoId, video, readAt);
    return video;
  }

  /** One query per video at a time; its answer replaces the entry. */
  private load(videoId: string): Promise<PlayableVideo | undefined> {
    let pending = this.inflight.get(videoId);
    if (!pending) {
      const readAt = ++this.reads;
      pending = this.read(videoId)
        .then((video) => {
          this.store(videoId, video, readAt);
          return video;
        })
        .finally(() => this.inflight.delete(videoId));
      this.inflight.set(videoId, pending);
    }
    return pending;
  }

  private store(videoId: string, video: PlayableVideo | undefined, readAt: number): void {
    const entry = this.entries.get(videoId);
    if (entry && entry.readAt > readAt) return;
    if (this.entries.size >= maxEntries) this.entries.clear();
    this.entries.set(videoId, { video, expiresAt: Date.now() + this.ttlMs, readAt });
  }
}

/** A video's renditions by key, lowest first, H.264 first at one height, alternate audio last (PlayableVideo.renditions). */
export function playableRenditions(
  rows: Pick<Rendition, 'key' | 'video_codec' | 'segment_count' | 'bandwidth' | 'average_bandwidth'>[],
): Map<string, PlayableRendition> {
  const sorted = rows
    .map((r) => ({
      key: r.key,
      height: Number.parseInt(r.key, 10),
      videoCodec: r.video_codec,
      segmentCount: r.segment_count,
      bandwidth: r.bandwidth,
      averageBandwidth: r.average_bandwidth ?? r.bandwidth,
    }))
    .filter((r) => Number.isInteger(r.height))
    .sort(
      (a, b) =>
        Number(isAlternateAudioKey(a.key)) - Number(isAlternateAudioKey(b.key)) ||
        a.height - b.height ||
        Number(a.videoCodec !== 'h264') - Number(b.videoCodec !== 'h264') ||
        a.key.localeCompare(b.key, 'en', { numeric: true }),
    );
  return new Map(sorted.map((r) => [r.key, r]));
}

/** A video as delivery serves it, or undefined when it is not playable (not ready, deleted, unknown). */
export async function readPlayableVideo(db: Db, id: string): Promise<PlayableVideo | undefined> {
  // A live stream's own path plays its broadcast running, else its last (the video's paths the rest).
  const videoId = isLiveStreamId(id) ? await findLiveStreamVideo(db, id) : id;
  if (!videoId) return undefined;
  const row = await findPlayableVideo(db, videoId);
  if (!row) return undefined;
  const [renditions, captions, addedAudio] = await Promise.all([
    listRenditions(db, videoId),
    listCaptionTracks(db, videoId),
    listReadyAudioTracks(db, videoId),
  ]);
  return {
    id: row.id,
    orgId: row.org_id,
    envId: row.env_id,
    name: row.name,
    width: row.source_width,
    height: row.source_height,
    allowPublicAccess: row.allow_public_access,
    thumbnailKey: row.thumbnail_key,
    storyboardKey: row.storyboard_key,
    audioKey: row.audio_key,
    renditions: playableRenditions(renditions),
    addedAudio: addedAudio.map(masterAudioOfTrack),
    captions: new Map(
      captions.map((c) => [
        c.language,
        { language: c.language, label: c.label, isDefault: c.is_default, storageKey: c.storage_key },
      ]),
    ),
    clipMedia:
      row.clip_media_video_id !== null
        ? {
            videoId: row.clip_media_video_id,
            firstSegment: row.clip_first_segment ?? 0,
            ownSegments: row.clip_own_segments,
          }
        : null,
    segmentsPending: row.segments_pending,
    masterKey: row.master_key,
    live: row.status !== 'ready',
  };
}

/** An added track as the master names it. */
function masterAudioOfTrack(track: ReadyAudioTrack): MasterAudio {
  return {
    key: track.rendition_key,
    language: track.language,
    name: track.name,
    isDefault: track.is_default,
    channels: track.channels ?? 0,
    codecs: track.codecs,
    bandwidth: track.bandwidth,
    averageBandwidth: track.average_bandwidth ?? track.bandwidth,
  };
}
