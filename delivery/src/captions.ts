// Caption files as delivery serves them, made from the track's one stored WebVTT file
// (objectKeys.caption) and the video's segment durations (the lowest rendition's playlist: every
// rendition cuts on the same keyframes): the subtitles playlist, its segments (captions.ts in the
// contract cuts them), and the whole file. Cut segments are kept per file and playlist, so a
// player's run through a track parses the file once.
import {
  captionContentTypes,
  hlsContentTypes,
  objectKeys,
  parseWebVtt,
  playlistSegmentDurations,
  renderSubtitlesPlaylist,
  segmentWebVtt,
} from '@kino/proto/contract';
import { DeliveryError } from './errors.ts';
import { bytesOf, contentEtag, type CachedObject, type ObjectCache, type UncachedObject } from './object-cache.ts';
import type { Resource } from './paths.ts';
import type { PlayableCaptionTrack, PlayableVideo } from './video-catalog.ts';

export type CaptionResource = Extract<Resource, { type: 'subtitles_playlist' | 'subtitles_segment' | 'captions_file' }>;

export function isCaptionResource(resource: Resource): resource is CaptionResource {
  return (
    resource.type === 'subtitles_playlist' || resource.type === 'subtitles_segment' || resource.type === 'captions_file'
  );
}

export interface CaptionFile {
  data: Buffer;
  etag: string;
  contentType: string;
}

const maxCutFiles = 500;

export class CaptionFiles {
  /** Segments of a track's file on a video's segment grid, by `<file etag>|<playlist etag>`. */
  private readonly cut = new Map<string, Buffer[]>();

  private readonly cache: Pick<ObjectCache, 'get' | 'getUncached'>;
  constructor(cache: Pick<ObjectCache, 'get' | 'getUncached'>) {
    this.cache = cache;
  }

  /** `token`: put on every URI of the subtitles playlist, as on the video's own playlists. */
  async get(
    video: PlayableVideo,
    track: PlayableCaptionTrack,
    resource: CaptionResource,
    token: string | null,
  ): Promise<CaptionFile> {
    const file = await this.object(video, track.storageKey);
    if (resource.type === 'captions_file') {
      const data = await bytesOf(file);
      return { data, etag: file.etag, contentType: captionContentTypes.vtt };
    }
    const playlist = await this.segmentGrid(video);
    const durations = playlistSegmentDurations((await bytesOf(playlist)).toString('utf8'));
    if (resource.type === 'subtitles_playlist') {
      const suffix = token ? `?token=${encodeURIComponent(token)}` : '';
      const data = Buffer.from(renderSubtitlesPlaylist(track.language, durations, suffix), 'utf8');
      return { data, etag: contentEtag(data), contentType: hlsContentTypes.playlist };
    }
    const memoKey = `${file.etag}|${playlist.etag}`;
    let segments = this.cut.get(memoKey);
    if (!segments) {
      const vtt = parseWebVtt((await bytesOf(file)).toString('utf8'));
      segments = segmentWebVtt(vtt, durations).map((text) => Buffer.from(text, 'utf8'));
      if (this.cut.size >= maxCutFiles) this.cut.clear();
      this.cut.set(memoKey, segments);
    }
    const data = segments[resource.index];
    if (!data)
      throw new DeliveryError(
        404,
        'segment_not_found',
        `The "${track.language}" subtitles of video ${video.id} have ${segments.length} segments.`,
      );
    return { data, etag: contentEtag(data), contentType: captionContentTypes.vtt };
  }

  private async object(video: PlayableVideo, key: string): Promise<CachedObject> {
    const object = await this.cache.get(key);
    if (!object) throw new DeliveryError(404, 'not_found', `Video ${video.id} has no such file.`);
    return object;
  }

  /** The lowest rendition's playlist; a video still being made has it written again once complete, so it is read past the cache. */
  private async segmentGrid(video: PlayableVideo): Promise<CachedObject | UncachedObject> {
    if (!video.segmentsPending) return this.object(video, segmentGridKey(video));
    const playlist = await this.cache.getUncached(segmentGridKey(video));
    if (!playlist) throw new DeliveryError(404, 'not_found', `Video ${video.id} has no such file.`);
    return playlist;
  }
}

/** The playlist whose segments the subtitles follow: the lowest rendition's. */
function segmentGridKey(video: PlayableVideo): string {
  const lowest = video.renditions.values().next().value;
  if (!lowest) throw new DeliveryError(404, 'rendition_not_found', `Video ${video.id} has no renditions.`);
  return objectKeys.renditionPlaylist(video.id, lowest.key);
}
