// Original file: kino.proto

import type { EncodeProgress as _kino_v1_EncodeProgress, EncodeProgress__Output as _kino_v1_EncodeProgress__Output } from '../../kino/v1/EncodeProgress.ts';
import type { EncodeDone as _kino_v1_EncodeDone, EncodeDone__Output as _kino_v1_EncodeDone__Output } from '../../kino/v1/EncodeDone.ts';

export interface EncodeEvent {
  'progress'?: (_kino_v1_EncodeProgress | null);
  'done'?: (_kino_v1_EncodeDone | null);
  'event'?: "progress"|"done";
}

export interface EncodeEvent__Output {
  'progress'?: (_kino_v1_EncodeProgress__Output | null);
  'done'?: (_kino_v1_EncodeDone__Output | null);
  'event'?: "progress"|"done";
}
