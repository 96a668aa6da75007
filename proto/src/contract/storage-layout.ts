// The bucket layout: where every object of Kino lives. The API writes uploads, the orchestrator
// presigns a node's outputs and removes a deleted video's objects, delivery reads them back.
import {
  hlsBootstrapName,
  hlsBootstrapPlaylistName,
  hlsInitName,
  hlsMasterName,
  hlsPlaylistName,
  hlsSegmentName,
} from './hls.ts';

/** A rendition's key (`720p`, `720p-av1`), or an H.264 rung's short edge (720 for `720p`). */
export type RenditionRef = string | number;

export const objectKeys = {
  /**
   * An image of an environment's (a watermark's, POST .../images), named by its id alone: a video's
   * parameters keep the id, and the workflow presigns the image from it for the nodes.
   */
  image: (imageId: string) => `images/${imageId}`,
  upload: (orgId: string, envId: string, uploadId: string, filename: string) =>
    `uploads/${orgId}/${envId}/${uploadId}/${filename}`,
  /**
   * A URL ingest's source, fetched by the video's workflow (the original of an ingested video, as
   * an upload's is for an uploaded one: kept beside the outputs, removed when the video is deleted).
   */
  ingestSource: (orgId: string, envId: string, videoId: string) => `ingests/${orgId}/${envId}/${videoId}/source`,
  /**
   * A broadcast's source (issue 56): its publisher's stream, which nothing stores yet; the name keeps
   * every video's storage path unique and tells where a live recording came from.
   */
  liveSource: (orgId: string, envId: string, videoId: string) => `live/${orgId}/${envId}/${videoId}/source`,
  /** Everything of a video: removed as a whole when it is deleted. */
  videoPrefix: (videoId: string) => `videos/${videoId}/`,
  /** The HLS of a video: the master playlist beside one directory per rendition. */
  hlsPrefix: (videoId: string) => `videos/${videoId}/hls/`,
  master: (videoId: string) => `${objectKeys.hlsPrefix(videoId)}${hlsMasterName}`,
  /**
   * A second master, written when a track is added to a video whose sound was muxed in its pictures:
   * its pictures without sound (pictureOnlyKey) and its sound as an alternate rendition. The video's
   * row names it (`master_key`); the first stays for viewers playing it (caches keep it immutable).
   */
  separatedSoundMaster: (videoId: string) => `${objectKeys.hlsPrefix(videoId)}master-separated-sound.m3u8`,
  /** The input playlist of a picture copy: the rendition's own, its files named by presigned URLs. */
  pictureCopyInput: (videoId: string, key: string) => `videos/${videoId}/work/picture-copy/${key}.m3u8`,
  /**
   * A frame-accurate clip's window input when its source is a broadcast's recording (no source
   * file): the recording's segment holding the window, its init and its bytes as one fMP4 file.
   */
  clipWindowInput: (videoId: string, segment: number) => `videos/${videoId}/work/clip-input/${segment}.mp4`,
  /**
   * A rendition's directory, named after its key: `720p` (the short edge) for an H.264 rung,
   * `720p-av1` for a rendition in another codec (renditionKeyPattern, delivery-paths.ts). A number
   * is a short edge: the H.264 rung's key.
   */
  renditionDir: (videoId: string, rendition: RenditionRef) =>
    `${objectKeys.hlsPrefix(videoId)}${typeof rendition === 'number' ? `${rendition}p` : rendition}`,
  renditionPlaylist: (videoId: string, rendition: RenditionRef) =>
    `${objectKeys.renditionDir(videoId, rendition)}/${hlsPlaylistName}`,
  renditionInit: (videoId: string, rendition: RenditionRef) =>
    `${objectKeys.renditionDir(videoId, rendition)}/${hlsInitName}`,
  segment: (videoId: string, rendition: RenditionRef, index: number) =>
    `${objectKeys.renditionDir(videoId, rendition)}/${hlsSegmentName(index)}`,
  /** Bootstrap segment `index` of the rendition's first segment (hlsBootstrapName). */
  bootstrapSegment: (videoId: string, rendition: RenditionRef, index: number) =>
    `${objectKeys.renditionDir(videoId, rendition)}/${hlsBootstrapName(index)}`,
  /** Part `index` of a low-latency broadcast's rendition (hlsLivePartName; numbered through the broadcast). */
  livePart: (videoId: string, rendition: RenditionRef, index: number) =>
    `${objectKeys.renditionDir(videoId, rendition)}/part-${String(index).padStart(5, '0')}.m4s`,
  /** The rendition's bootstrap playlist, beside its playlist (written for videos that have bootstrap segments). */
  bootstrapPlaylist: (videoId: string, rendition: RenditionRef) =>
    `${objectKeys.renditionDir(videoId, rendition)}/${hlsBootstrapPlaylistName}`,
  /**
   * Intermediate files of a chunked encode (docs/architecture.md#chunked-encoding): the video's
   * audio track and one record per finished chunk. Removed when the video is ready.
   */
  workPrefix: (videoId: string) => `videos/${videoId}/work/`,
  /** The audio track every chunk copies its part of, per audio setting (`aac-128`). */
  audioTrack: (videoId: string, setting: string) => `videos/${videoId}/work/audio-${setting}.mp4`,
  /** A finished chunk's record (written after its segments): `work/chunks/<plan>/<group>-<index>.json`. */
  chunkRecord: (videoId: string, plan: string, name: string) => `videos/${videoId}/work/chunks/${plan}/${name}.json`,
  /**
   * The words a node heard in one piece of a video's sound (TranscribedWords), for one run of
   * generateCaptions (`run`: its own name, so runs never meet). The join removes them.
   */
  transcriptPiece: (videoId: string, run: string, index: number) =>
    `videos/${videoId}/work/captions/${run}/${index}.json`,
  /**
   * The `audio.m4a` download of a video with sound: its audio alone as AAC in an MP4 (moov first),
   * kept beside the HLS (not under work/: it stays while the video does).
   */
  audioDownload: (videoId: string) => `videos/${videoId}/audio.m4a`,
  thumbnail: (videoId: string, name: string) => `videos/${videoId}/thumbs/${name}`,
  /** A custom thumbnail's name under thumbs/ (`c12500` → `custom/c12500.jpg`). */
  customThumbnailName: (thumbnailId: string) => `custom/${thumbnailId}.jpg`,
  /** The storyboard: `storyboard.vtt` and its sheets (storyboard.ts). */
  storyboard: (videoId: string, name: string) => `videos/${videoId}/storyboard/${name}`,
  /**
   * A caption track's whole WebVTT file (captions.ts). Each upload gets a new `revision` in its name:
   * delivery caches objects as immutable, so a replaced track must be a new key, never new bytes.
   */
  caption: (videoId: string, language: string, revision: string) =>
    `videos/${videoId}/captions/${language}/${revision}.vtt`,
};

/** Content types of the intermediate files under `work/`. */
export const workContentTypes = {
  audioTrack: 'audio/mp4',
  chunkRecord: 'application/json',
  transcriptPiece: 'application/json',
} as const;

/** The content type of `audio.m4a` (objectKeys.audioDownload), in storage and on the delivery host. */
export const audioDownloadContentType = 'audio/mp4';
