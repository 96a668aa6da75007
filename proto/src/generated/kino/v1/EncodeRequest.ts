// Original file: kino.proto

import type { RenditionSpec as _kino_v1_RenditionSpec, RenditionSpec__Output as _kino_v1_RenditionSpec__Output } from '../../kino/v1/RenditionSpec.ts';
import type { ChunkSpec as _kino_v1_ChunkSpec, ChunkSpec__Output as _kino_v1_ChunkSpec__Output } from '../../kino/v1/ChunkSpec.ts';

/**
 * One encode: one or more renditions from one decode of the source (one for a fanned-out ladder,
 * the whole ladder otherwise), all single-pass or all two-pass.
 */
export interface EncodeRequest {
  'jobId'?: (string);
  'videoId'?: (string);
  'inputUrl'?: (string);
  /**
   * `<key>/<file>` (720p/playlist.m3u8, 720p/init.mp4, 720p/seg-00000.m4s, ...) -> presigned PUT URL.
   */
  'outputUrls'?: ({[key: string]: string});
  'durationSeconds'?: (number | string);
  /**
   * At least one; keys are plain names (letters, digits, _ and -), unique within the request.
   */
  'renditions'?: (_kino_v1_RenditionSpec)[];
  /**
   * Set: the encode makes one chunk of a longer video (see ChunkSpec). output_urls then holds the
   * chunk's segments, numbered for the whole video, and `<key>/init.mp4` for the first chunk only;
   * no playlist (the orchestrator writes the playlists from every chunk's segments).
   */
  'chunk'?: (_kino_v1_ChunkSpec | null);
  /**
   * Set: the encode makes only the audio track of the whole video, with the first rendition's audio
   * settings, as one MP4 uploaded here (chunks copy their part of it: one audio encode, no seams).
   * output_urls is then empty.
   */
  'audioTrackUrl'?: (string);
}

/**
 * One encode: one or more renditions from one decode of the source (one for a fanned-out ladder,
 * the whole ladder otherwise), all single-pass or all two-pass.
 */
export interface EncodeRequest__Output {
  'jobId': (string);
  'videoId': (string);
  'inputUrl': (string);
  /**
   * `<key>/<file>` (720p/playlist.m3u8, 720p/init.mp4, 720p/seg-00000.m4s, ...) -> presigned PUT URL.
   */
  'outputUrls': ({[key: string]: string});
  'durationSeconds': (number);
  /**
   * At least one; keys are plain names (letters, digits, _ and -), unique within the request.
   */
  'renditions': (_kino_v1_RenditionSpec__Output)[];
  /**
   * Set: the encode makes one chunk of a longer video (see ChunkSpec). output_urls then holds the
   * chunk's segments, numbered for the whole video, and `<key>/init.mp4` for the first chunk only;
   * no playlist (the orchestrator writes the playlists from every chunk's segments).
   */
  'chunk': (_kino_v1_ChunkSpec__Output | null);
  /**
   * Set: the encode makes only the audio track of the whole video, with the first rendition's audio
   * settings, as one MP4 uploaded here (chunks copy their part of it: one audio encode, no seams).
   * output_urls is then empty.
   */
  'audioTrackUrl': (string);
}
