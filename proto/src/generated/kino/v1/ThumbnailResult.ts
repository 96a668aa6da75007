// Original file: kino.proto

import type { Long } from '@grpc/proto-loader';

export interface ThumbnailResult {
  'width'?: (number);
  'height'?: (number);
  'bytes'?: (number | string | Long);
}

export interface ThumbnailResult__Output {
  'width': (number);
  'height': (number);
  'bytes': (number);
}
