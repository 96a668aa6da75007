// Original file: kino.proto

import type { RenditionDone as _kino_v1_RenditionDone, RenditionDone__Output as _kino_v1_RenditionDone__Output } from '../../kino/v1/RenditionDone.ts';
import type { Long } from '@grpc/proto-loader';

export interface EncodeDone {
  /**
   * every file of the job
   */
  'bytesWritten'?: (number | string | Long);
  /**
   * every file of the job, `<key>/<file>`
   */
  'files'?: (string)[];
  /**
   * One per requested rendition, in request order.
   */
  'renditions'?: (_kino_v1_RenditionDone)[];
}

export interface EncodeDone__Output {
  /**
   * every file of the job
   */
  'bytesWritten': (number);
  /**
   * every file of the job, `<key>/<file>`
   */
  'files': (string)[];
  /**
   * One per requested rendition, in request order.
   */
  'renditions': (_kino_v1_RenditionDone__Output)[];
}
