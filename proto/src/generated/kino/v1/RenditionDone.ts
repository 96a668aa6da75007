// Original file: kino.proto

import type { Long } from '@grpc/proto-loader';

/**
 * What one rendition of a multi-rendition encode wrote (the per-rendition fields of EncodeDone).
 */
export interface RenditionDone {
  'key'?: (string);
  'segmentCount'?: (number);
  'peakBandwidth'?: (number | string | Long);
  'averageBandwidth'?: (number | string | Long);
  'codecs'?: (string);
  'frameCount'?: (number | string | Long);
  'width'?: (number);
  'height'?: (number);
  'pixelFormat'?: (string);
  'audioFormat'?: (string);
  'durationSeconds'?: (number | string);
  'bytesWritten'?: (number | string | Long);
}

/**
 * What one rendition of a multi-rendition encode wrote (the per-rendition fields of EncodeDone).
 */
export interface RenditionDone__Output {
  'key': (string);
  'segmentCount': (number);
  'peakBandwidth': (number);
  'averageBandwidth': (number);
  'codecs': (string);
  'frameCount': (number);
  'width': (number);
  'height': (number);
  'pixelFormat': (string);
  'audioFormat': (string);
  'durationSeconds': (number);
  'bytesWritten': (number);
}
