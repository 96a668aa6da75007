// Every path shape the delivery host answers (spec, "Playback"), parsed into one route type, and
// the mapping between those paths and the one storage layout (objectKeys, @kino/proto/contract).
//
// Three families serve the same files:
//   public   /v1/public/{org}/{env}/{vid}/...   (the org and env must be the video's)
//   private  /v1/private/{vid}/...?token=JWT
//   direct   /{vid}/...
// Inside the two /v1 families: master.m3u8, video-<q>.m3u8, video-<q>/init.m4s,
// video-<q>/seg-<n>.m4s, and video/init.m4s (the lowest rendition's init segment: the spec names
// one init for the video, but each rendition has its own, so the rewritten playlists point at the
// per-rendition one and video/init.m4s is kept for the spec's shape).
// Inside direct: master.m3u8, <q>.m3u8, <q>/init.mp4, <q>/seg-<n>.m4s; `<q>/<n>.ts`,
// `<q>/seg-<n>.ts` and `<q>/<n>.m4s` are accepted aliases of the same fMP4 segment (Kino makes
// CMAF segments only; the spec's `.ts` name is kept so its URL shape resolves).
// Storyboards (storyboards.ts): `storyboard.vtt` and `storyboard-<n>.jpg` at every family's base.
// MP4 downloads (mp4-download.ts): `video-<q>.mp4` in the /v1 families, `<q>.mp4` in direct; and
// `audio.m4a` (the video's audio alone, one stored object) at the base of every family.
// Captions (captions.ts, the contract's captionFileNames) at every family's base: the subtitles
// playlist `subtitles-<lang>.m3u8`, its segments `subtitles-<lang>/seg-<n>.vtt`, and the whole file
// `subtitles-<lang>.vtt`; none is a stored object as such (delivery makes them from the track's file).
// <q> is a rendition key as in storage (renditionKeyPattern): `720p` (the short edge; `0p` for an
// audio-only video's one rendition), or `720p-hevc`, `720p-av1` for a rendition in another codec,
// served in every family exactly as `720p` is. Downloads are H.264 only (routes/downloads.ts).
import type { AnimatedFormat, PictureFormat } from '@kino/ffmpeg';
import {
  audioDownloadName,
  BEACONS_PATH,
  hlsBootstrapCount,
  embedPaths,
  hlsMasterName,
  hlsSegmentName,
  objectKeys,
  playerAssetPaths,
  renditionKeyPattern,
  storyboardSheetName,
  storyboardVttName,
} from '@kino/proto/contract';

/** `share`: `/v1/share/{linkId}/...`, the `/v1` names, opened by a share link (share-links.ts). */
export type Family = 'public' | 'private' | 'direct' | 'share';

export type Resource =
  | { type: 'master' }
  | { type: 'rendition'; quality: string }
  /** quality null: the lowest rendition (`video/init.m4s`). */
  | { type: 'init'; quality: string | null }
  /**
   * `part`: bootstrap segment `part` of the first segment (`boot-<n>.m4s`, issue 55; index is then
   * 0, the segment it is part of).
   */
  | { type: 'segment'; quality: string; index: number; part?: number }
  /** A low-latency broadcast's part `index` (`part-<n>.m4s`, numbered through the broadcast; issue 56). */
  | { type: 'live_part'; quality: string; index: number }
  /** One rendition as one MP4 file, assembled from its init and segments. */
  | { type: 'download'; quality: string }
  /** `audio.m4a`: the video's audio alone (objectKeys.audioDownload), served as MP4 downloads are. */
  | { type: 'audio_download' }
  | { type: 'storyboard' }
  | { type: 'storyboard_sheet'; index: number }
  | { type: 'subtitles_playlist'; language: string }
  | { type: 'subtitles_segment'; language: string; index: number }
  | { type: 'captions_file'; language: string }
  /** `animated.webp` or `animated.gif`: a looping preview of a stretch of the video (routes/animated.ts). */
  | { type: 'animated'; format: AnimatedFormat };

export type DeliveryRoute =
  | { kind: 'playback'; family: Family; videoId: string; orgId?: string; envId?: string; resource: Resource }
  | { kind: 'share'; linkId: string; resource: Resource }
  | { kind: 'share_page'; linkId: string }
  /** A file of the watch and embed pages' player (player-page.ts), by its path. */
  | { kind: 'player_asset'; path: string }
  /** `/embed/{videoId}`: the player page for an iframe. */
  | { kind: 'embed_page'; videoId: string }
  | { kind: 'oembed' }
  /**
   * `custom`: a custom thumbnail's id (`/t/{id}/c12500/<w>x<h>.jpg`); absent: the default thumbnail,
   * or with `?time=` the frame at that moment. `.jpg`, `.png` or `.webp`.
   */
  | { kind: 'thumbnail'; videoId: string; width: number; height: number; format: PictureFormat; custom?: string }
  | { kind: 'invalid_thumbnail_size'; width: number; height: number }
  | { kind: 'health' }
  | { kind: 'beacons' };

export const THUMBNAIL_MIN_EDGE = 16;
export const THUMBNAIL_MAX_EDGE = 3840;

const id = '([A-Za-z0-9_-]{1,64})';
const quality = `(${renditionKeyPattern})`;
const index = '(\\d{1,7})';
const publicBase = new RegExp(`^/v1/public/${id}/${id}/${id}/(.+)$`);
const privateBase = new RegExp(`^/v1/private/${id}/(.+)$`);
const directBase = new RegExp(`^/${id}/(.+)$`);
const shareBase = new RegExp(`^/v1/share/${id}/(.+)$`);
const sharePage = new RegExp(`^/v1/share/${id}/?$`);
const embedPage = new RegExp(`^/embed/${id}/?$`);
const playerAssets = new Set(Object.values(playerAssetPaths));
const thumbnail = new RegExp(`^/t/${id}/(?:(c\\d{1,10})/)?(\\d{1,5})x(\\d{1,5})\\.(jpg|png|webp)$`);
const v1Rendition = new RegExp(`^video-${quality}\\.m3u8$`);
const v1Init = new RegExp(`^video-${quality}/init\\.m4s$`);
const v1Segment = new RegExp(`^video-${quality}/seg-${index}\\.m4s$`);
const v1Download = new RegExp(`^video-${quality}\\.mp4$`);
const directDownload = new RegExp(`^${quality}\\.mp4$`);
const storyboardSheet = /^storyboard-(\d{1,5})\.jpg$/;
const animatedPreview = /^animated\.(webp|gif)$/;
const language = '([A-Za-z0-9-]{1,35})';
const subtitlesPlaylist = new RegExp(`^subtitles-${language}\\.m3u8$`);
const subtitlesSegment = new RegExp(`^subtitles-${language}/seg-${index}\\.vtt$`);
const captionsFile = new RegExp(`^subtitles-${language}\\.vtt$`);
const directRendition = new RegExp(`^${quality}\\.m3u8$`);
const directInit = new RegExp(`^${quality}/init\\.mp4$`);
const directSegment = new RegExp(`^${quality}/(?:seg-)?${index}\\.(?:m4s|ts)$`);
const bootstrapIndex = '(\\d)';
const v1Bootstrap = new RegExp(`^video-${quality}/boot-${bootstrapIndex}\\.m4s$`);
const directBootstrap = new RegExp(`^${quality}/boot-${bootstrapIndex}\\.m4s$`);
const v1LivePart = new RegExp(`^video-${quality}/part-${index}\\.m4s$`);
const directLivePart = new RegExp(`^${quality}/part-${index}\\.m4s$`);

/** The route for a request path (without its query), or undefined for a path Kino does not serve. */
export function parseDeliveryPath(path: string): DeliveryRoute | undefined {
  let match: RegExpExecArray | null;
  if ((match = publicBase.exec(path))) {
    const resource = parseV1Resource(match[4]!);
    return (
      resource && {
        kind: 'playback',
        family: 'public',
        orgId: match[1]!,
        envId: match[2]!,
        videoId: match[3]!,
        resource,
      }
    );
  }
  if ((match = privateBase.exec(path))) {
    const resource = parseV1Resource(match[2]!);
    return resource && { kind: 'playback', family: 'private', videoId: match[1]!, resource };
  }
  if ((match = shareBase.exec(path))) {
    const resource = parseV1Resource(match[2]!);
    return resource && { kind: 'share', linkId: match[1]!, resource };
  }
  if ((match = sharePage.exec(path))) return { kind: 'share_page', linkId: match[1]! };
  if (playerAssets.has(path)) return { kind: 'player_asset', path };
  if ((match = embedPage.exec(path))) return { kind: 'embed_page', videoId: match[1]! };
  if (path === embedPaths.oembed) return { kind: 'oembed' };
  if ((match = thumbnail.exec(path))) {
    const width = Number(match[3]);
    const height = Number(match[4]);
    const inBounds = (n: number) => n >= THUMBNAIL_MIN_EDGE && n <= THUMBNAIL_MAX_EDGE;
    if (!inBounds(width) || !inBounds(height)) return { kind: 'invalid_thumbnail_size', width, height };
    const format = match[5] as PictureFormat;
    return { kind: 'thumbnail', videoId: match[1]!, width, height, format, ...(match[2] ? { custom: match[2] } : {}) };
  }
  if (path === '/health') return { kind: 'health' };
  if (path === BEACONS_PATH) return { kind: 'beacons' };
  if ((match = directBase.exec(path)) && match[1] !== 'v1' && match[1] !== 't' && match[1] !== 'embed') {
    const resource = parseDirectResource(match[2]!);
    return resource && { kind: 'playback', family: 'direct', videoId: match[1]!, resource };
  }
  return undefined;
}

/** What every family serves at its base besides the video's playlists: the storyboard, its sheets, and captions. */
function parseSharedResource(rest: string): Resource | undefined {
  if (rest === storyboardVttName) return { type: 'storyboard' };
  let match: RegExpExecArray | null;
  if ((match = storyboardSheet.exec(rest))) return { type: 'storyboard_sheet', index: Number(match[1]) };
  if ((match = subtitlesPlaylist.exec(rest))) return { type: 'subtitles_playlist', language: match[1]! };
  if ((match = subtitlesSegment.exec(rest)))
    return { type: 'subtitles_segment', language: match[1]!, index: Number(match[2]) };
  if ((match = captionsFile.exec(rest))) return { type: 'captions_file', language: match[1]! };
  if ((match = animatedPreview.exec(rest))) return { type: 'animated', format: match[1] as AnimatedFormat };
  return undefined;
}

function parseV1Resource(rest: string): Resource | undefined {
  let match: RegExpExecArray | null;
  if (rest === 'master.m3u8') return { type: 'master' };
  if (rest === audioDownloadName) return { type: 'audio_download' };
  const shared = parseSharedResource(rest);
  if (shared) return shared;
  if (rest === 'video/init.m4s') return { type: 'init', quality: null };
  if ((match = v1Rendition.exec(rest))) return { type: 'rendition', quality: match[1]! };
  if ((match = v1Init.exec(rest))) return { type: 'init', quality: match[1]! };
  if ((match = v1Segment.exec(rest))) return { type: 'segment', quality: match[1]!, index: Number(match[2]) };
  if ((match = v1Bootstrap.exec(rest))) return bootstrapSegment(match[1]!, Number(match[2]));
  if ((match = v1LivePart.exec(rest))) return { type: 'live_part', quality: match[1]!, index: Number(match[2]) };
  if ((match = v1Download.exec(rest))) return { type: 'download', quality: match[1]! };
  return undefined;
}

function parseDirectResource(rest: string): Resource | undefined {
  let match: RegExpExecArray | null;
  if (rest === 'master.m3u8') return { type: 'master' };
  if (rest === audioDownloadName) return { type: 'audio_download' };
  const shared = parseSharedResource(rest);
  if (shared) return shared;
  if ((match = directRendition.exec(rest))) return { type: 'rendition', quality: match[1]! };
  if ((match = directInit.exec(rest))) return { type: 'init', quality: match[1]! };
  if ((match = directSegment.exec(rest))) return { type: 'segment', quality: match[1]!, index: Number(match[2]) };
  if ((match = directBootstrap.exec(rest))) return bootstrapSegment(match[1]!, Number(match[2]));
  if ((match = directLivePart.exec(rest))) return { type: 'live_part', quality: match[1]!, index: Number(match[2]) };
  if ((match = directDownload.exec(rest))) return { type: 'download', quality: match[1]! };
  return undefined;
}

/** Bootstrap segment `part` of a rendition's first segment; none past the last. */
function bootstrapSegment(quality: string, part: number): Resource | undefined {
  return part < hlsBootstrapCount ? { type: 'segment', quality, index: 0, part } : undefined;
}

/** The height in a rendition key: `720p` → 720, `720p-av1` → 720. */
export function qualityHeight(quality: string): number {
  return Number.parseInt(quality, 10);
}

/** The storage key of a resource (an init's quality must be resolved first). */
export function storageKeyOf(videoId: string, resource: Resource): string {
  switch (resource.type) {
    case 'master':
      return objectKeys.master(videoId);
    case 'rendition':
      return objectKeys.renditionPlaylist(videoId, resource.quality);
    case 'init':
      if (!resource.quality) throw new Error('resolve the init segment quality first');
      return objectKeys.renditionInit(videoId, resource.quality);
    case 'segment':
      return resource.part === undefined
        ? objectKeys.segment(videoId, resource.quality, resource.index)
        : objectKeys.bootstrapSegment(videoId, resource.quality, resource.part);
    case 'live_part':
      return objectKeys.livePart(videoId, resource.quality, resource.index);
    case 'storyboard':
      return objectKeys.storyboard(videoId, storyboardVttName);
    case 'storyboard_sheet':
      return objectKeys.storyboard(videoId, storyboardSheetName(resource.index));
    case 'download':
      throw new Error('a download is assembled from several objects (mp4-download.ts)');
    case 'audio_download':
      return objectKeys.audioDownload(videoId);
    case 'subtitles_playlist':
    case 'subtitles_segment':
    case 'captions_file':
      throw new Error("captions are made from the track's stored file (routes/captions.ts)");
    case 'animated':
      throw new Error('an animated preview is made from the source (routes/animated.ts)');
  }
}

/**
 * A clip's media: the video whose init and media segments it plays, that video's segment that is
 * the clip's segment 0, and the clip's segments that are its own objects (a frame-accurate clip's
 * first and last, encoded for it; none for a segment-accurate clip).
 */
export interface ClipMedia {
  videoId: string;
  firstSegment: number;
  ownSegments: readonly number[];
}

/**
 * Where a video's init or media segment is stored: a clip's are its media video's, its segment `n`
 * being that video's `firstSegment + n`, except its own segments (docs/decisions/delivery.md#clips).
 * The init is always the media video's: a frame-accurate clip's own segments are encoded with the
 * same settings, whose init segment is the same bytes. Anything else: storageKeyOf.
 */
export function mediaKeyOf(
  video: { id: string; clipMedia: ClipMedia | null; masterKey?: string | null },
  resource: Resource,
): string {
  // A video whose sound was separated from its pictures serves its second master (PlayableVideo.masterKey).
  if (resource.type === 'master' && video.masterKey) return video.masterKey;
  const media = video.clipMedia;
  // A clip has no bootstrap segments of its own, nor offers its media video's (their first segment is not its).
  if (
    media &&
    resource.type === 'segment' &&
    resource.part === undefined &&
    !media.ownSegments.includes(resource.index)
  ) {
    return storageKeyOf(media.videoId, { ...resource, index: media.firstSegment + resource.index });
  }
  if (media && resource.type === 'segment') return storageKeyOf(video.id, resource);
  if (media && resource.type === 'init') return storageKeyOf(media.videoId, resource);
  return storageKeyOf(video.id, resource);
}

const storedRendition = new RegExp(`^${quality}/playlist\\.m3u8$`);
const storedInit = new RegExp(`^${quality}/init\\.mp4$`);
const storedSegment = new RegExp(`^${quality}/seg-${index}\\.m4s$`);
const storedBootstrap = new RegExp(`^${quality}/(boot-\\d\\.m4s)$`);
const storedLivePart = new RegExp(`^${quality}/(part-\\d{5,7}\\.m4s)$`);

/**
 * The URI, relative to a playlist served at the family's base, of a stored object of the video
 * (`videos/{id}/hls/720p/seg-00003.m4s` → `video-720p/seg-00003.m4s` or `720p/seg-00003.m4s`), or
 * undefined when the key is not one delivery serves. Every playlist of a family sits at its base
 * (master.m3u8 and video-720p.m3u8 side by side), so one relative form fits all of them.
 */
export function familyUriOf(family: Family, videoId: string, key: string): string | undefined {
  const prefix = objectKeys.hlsPrefix(videoId);
  if (!key.startsWith(prefix)) return undefined;
  const rest = key.slice(prefix.length);
  const v1 = family !== 'direct';
  let match: RegExpExecArray | null;
  if (rest === hlsMasterName) return 'master.m3u8';
  if ((match = storedRendition.exec(rest))) return v1 ? `video-${match[1]}.m3u8` : `${match[1]}.m3u8`;
  if ((match = storedInit.exec(rest))) return v1 ? `video-${match[1]}/init.m4s` : `${match[1]}/init.mp4`;
  if ((match = storedSegment.exec(rest))) {
    const name = hlsSegmentName(Number(match[2]));
    return v1 ? `video-${match[1]}/${name}` : `${match[1]}/${name}`;
  }
  if ((match = storedBootstrap.exec(rest))) return v1 ? `video-${match[1]}/${match[2]}` : `${match[1]}/${match[2]}`;
  if ((match = storedLivePart.exec(rest))) return v1 ? `video-${match[1]}/${match[2]}` : `${match[1]}/${match[2]}`;
  return undefined;
}
