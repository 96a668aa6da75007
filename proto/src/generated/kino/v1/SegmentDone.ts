// Original file: kino.proto

import type { Long } from '@grpc/proto-loader';

export interface SegmentDone {
  /**
   * seg-00012.m4s
   */
  'name'?: (string);
  /**
   * its EXTINF
   */
  'durationSeconds'?: (number | string);
  'sizeBytes'?: (number | string | Long);
}

export interface SegmentDone__Output {
  /**
   * seg-00012.m4s
   */
  'name': (string);
  /**
   * its EXTINF
   */
  'durationSeconds': (number);
  'sizeBytes': (number);
}
