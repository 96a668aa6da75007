// Original file: kino.proto

import type { RenditionSpec as _kino_v1_RenditionSpec, RenditionSpec__Output as _kino_v1_RenditionSpec__Output } from '../../kino/v1/RenditionSpec.ts';

/**
 * The whole video: one or more renditions from one decode of the source (one for a fanned-out
 * ladder, the whole ladder otherwise), all single-pass or all two-pass.
 */
export interface WholeEncode {
  /**
   * At least one; keys are plain names (letters, digits, _ and -), unique within the request.
   */
  'renditions'?: (_kino_v1_RenditionSpec)[];
  /**
   * `<key>/<file>` (720p/playlist.m3u8, 720p/init.mp4, 720p/seg-00000.m4s, ...) -> presigned PUT URL.
   */
  'outputUrls'?: ({[key: string]: string});
  /**
   * Score every rendition against the source (VMAF and PSNR) before answering.
   */
  'measureQuality'?: (boolean);
}

/**
 * The whole video: one or more renditions from one decode of the source (one for a fanned-out
 * ladder, the whole ladder otherwise), all single-pass or all two-pass.
 */
export interface WholeEncode__Output {
  /**
   * At least one; keys are plain names (letters, digits, _ and -), unique within the request.
   */
  'renditions': (_kino_v1_RenditionSpec__Output)[];
  /**
   * `<key>/<file>` (720p/playlist.m3u8, 720p/init.mp4, 720p/seg-00000.m4s, ...) -> presigned PUT URL.
   */
  'outputUrls': ({[key: string]: string});
  /**
   * Score every rendition against the source (VMAF and PSNR) before answering.
   */
  'measureQuality': (boolean);
}
