// Original file: kino.proto

import type { RenditionSpec as _kino_v1_RenditionSpec, RenditionSpec__Output as _kino_v1_RenditionSpec__Output } from '../../kino/v1/RenditionSpec.ts';

export interface EncodeRequest {
  'jobId'?: (string);
  'videoId'?: (string);
  'inputUrl'?: (string);
  'rendition'?: (_kino_v1_RenditionSpec | null);
  /**
   * File name (playlist.m3u8, init.mp4, seg-00000.m4s, ...) -> presigned PUT URL.
   */
  'outputUrls'?: ({[key: string]: string});
  'durationSeconds'?: (number | string);
  /**
   * Several renditions from one decode of the source. When non-empty it replaces `rendition`, and
   * output_urls keys are `<key>/<file>` (720p/playlist.m3u8, 720p/seg-00000.m4s, ...).
   */
  'renditions'?: (_kino_v1_RenditionSpec)[];
}

export interface EncodeRequest__Output {
  'jobId': (string);
  'videoId': (string);
  'inputUrl': (string);
  'rendition': (_kino_v1_RenditionSpec__Output | null);
  /**
   * File name (playlist.m3u8, init.mp4, seg-00000.m4s, ...) -> presigned PUT URL.
   */
  'outputUrls': ({[key: string]: string});
  'durationSeconds': (number);
  /**
   * Several renditions from one decode of the source. When non-empty it replaces `rendition`, and
   * output_urls keys are `<key>/<file>` (720p/playlist.m3u8, 720p/seg-00000.m4s, ...).
   */
  'renditions': (_kino_v1_RenditionSpec__Output)[];
}
