// Original file: kino.proto

import type { RenditionDone as _kino_v1_RenditionDone, RenditionDone__Output as _kino_v1_RenditionDone__Output } from '../../kino/v1/RenditionDone.ts';
import type { Long } from '@grpc/proto-loader';

export interface EncodeDone {
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
  'bytesWritten'?: (number | string | Long);
  'files'?: (string)[];
  /**
   * Added with the first node: what was actually written, which can differ from the request
   * (12-bit pixel formats become 10-bit, aac-he and aac-he-v2 become AAC-LC; see workers/README.md).
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
  /**
   * One per requested rendition, in request order, when the request had `renditions` (the fields
   * above then describe the first of them; bytes_written and files cover the whole job).
   */
  'renditions'?: (_kino_v1_RenditionDone)[];
}

export interface EncodeDone__Output {
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
  'bytesWritten': (number);
  'files': (string)[];
  /**
   * Added with the first node: what was actually written, which can differ from the request
   * (12-bit pixel formats become 10-bit, aac-he and aac-he-v2 become AAC-LC; see workers/README.md).
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
  /**
   * One per requested rendition, in request order, when the request had `renditions` (the fields
   * above then describe the first of them; bytes_written and files cover the whole job).
   */
  'renditions': (_kino_v1_RenditionDone__Output)[];
}
