// Original file: kino.proto

import type { SegmentDone as _kino_v1_SegmentDone, SegmentDone__Output as _kino_v1_SegmentDone__Output } from '../../kino/v1/SegmentDone.ts';
import type { Long } from '@grpc/proto-loader';

/**
 * What one rendition of an encode wrote, measured on the output.
 */
export interface RenditionDone {
  'key'?: (string);
  'segmentCount'?: (number);
  /**
   * bits/s, for BANDWIDTH
   */
  'peakBandwidth'?: (number | string | Long);
  /**
   * bits/s, for AVERAGE-BANDWIDTH
   */
  'averageBandwidth'?: (number | string | Long);
  /**
   * RFC 6381, e.g. "avc1.64001f,mp4a.40.2"
   */
  'codecs'?: (string);
  'frameCount'?: (number | string | Long);
  'width'?: (number);
  'height'?: (number);
  /**
   * What was actually written, which can differ from the request (12-bit pixel formats become
   * 10-bit, aac-he and aac-he-v2 become AAC-LC; see encode-node/README.md).
   */
  'pixelFormat'?: (string);
  /**
   * aac, mp3, ac3, eac3; empty when the output has no audio
   */
  'audioFormat'?: (string);
  /**
   * sum of the rendition playlist's EXTINF durations
   */
  'durationSeconds'?: (number | string);
  'bytesWritten'?: (number | string | Long);
  /**
   * The segments written, in order (a chunk's: numbered from its first_segment).
   */
  'segments'?: (_kino_v1_SegmentDone)[];
  /**
   * Against the source, when the request asked for it (quality_frames 0: not measured): the mean
   * VMAF (vmaf_v0.6.1) and luma PSNR over quality_frames frames scored.
   */
  'vmaf'?: (number | string);
  'psnr'?: (number | string);
  'qualityFrames'?: (number | string | Long);
}

/**
 * What one rendition of an encode wrote, measured on the output.
 */
export interface RenditionDone__Output {
  'key': (string);
  'segmentCount': (number);
  /**
   * bits/s, for BANDWIDTH
   */
  'peakBandwidth': (number);
  /**
   * bits/s, for AVERAGE-BANDWIDTH
   */
  'averageBandwidth': (number);
  /**
   * RFC 6381, e.g. "avc1.64001f,mp4a.40.2"
   */
  'codecs': (string);
  'frameCount': (number);
  'width': (number);
  'height': (number);
  /**
   * What was actually written, which can differ from the request (12-bit pixel formats become
   * 10-bit, aac-he and aac-he-v2 become AAC-LC; see encode-node/README.md).
   */
  'pixelFormat': (string);
  /**
   * aac, mp3, ac3, eac3; empty when the output has no audio
   */
  'audioFormat': (string);
  /**
   * sum of the rendition playlist's EXTINF durations
   */
  'durationSeconds': (number);
  'bytesWritten': (number);
  /**
   * The segments written, in order (a chunk's: numbered from its first_segment).
   */
  'segments': (_kino_v1_SegmentDone__Output)[];
  /**
   * Against the source, when the request asked for it (quality_frames 0: not measured): the mean
   * VMAF (vmaf_v0.6.1) and luma PSNR over quality_frames frames scored.
   */
  'vmaf': (number);
  'psnr': (number);
  'qualityFrames': (number);
}
