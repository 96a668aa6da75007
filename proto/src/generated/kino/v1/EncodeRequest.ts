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
}
