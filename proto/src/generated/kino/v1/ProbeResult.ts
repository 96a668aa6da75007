// Original file: kino.proto

import type { Long } from '@grpc/proto-loader';

export interface ProbeResult {
  'durationSeconds'?: (number | string);
  /**
   * as displayed: rotation already applied
   */
  'width'?: (number);
  'height'?: (number);
  'frameRate'?: (number | string);
  'frameCount'?: (number | string | Long);
  'videoCodec'?: (string);
  'pixelFormat'?: (string);
  'hasAudio'?: (boolean);
  'audioCodec'?: (string);
  'audioChannels'?: (number);
  'audioSampleRate'?: (number);
  'formatName'?: (string);
  'sizeBytes'?: (number | string | Long);
}

export interface ProbeResult__Output {
  'durationSeconds': (number);
  /**
   * as displayed: rotation already applied
   */
  'width': (number);
  'height': (number);
  'frameRate': (number);
  'frameCount': (number);
  'videoCodec': (string);
  'pixelFormat': (string);
  'hasAudio': (boolean);
  'audioCodec': (string);
  'audioChannels': (number);
  'audioSampleRate': (number);
  'formatName': (string);
  'sizeBytes': (number);
}
