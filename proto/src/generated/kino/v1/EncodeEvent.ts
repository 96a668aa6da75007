// Original file: kino.proto

import type { EncodeProgress as _kino_v1_EncodeProgress, EncodeProgress__Output as _kino_v1_EncodeProgress__Output } from '../../kino/v1/EncodeProgress.ts';
import type { EncodeDone as _kino_v1_EncodeDone, EncodeDone__Output as _kino_v1_EncodeDone__Output } from '../../kino/v1/EncodeDone.ts';
import type { LiveFile as _kino_v1_LiveFile, LiveFile__Output as _kino_v1_LiveFile__Output } from '../../kino/v1/LiveFile.ts';
import type { LiveRenditionStarted as _kino_v1_LiveRenditionStarted, LiveRenditionStarted__Output as _kino_v1_LiveRenditionStarted__Output } from '../../kino/v1/LiveRenditionStarted.ts';

export interface EncodeEvent {
  'progress'?: (_kino_v1_EncodeProgress | null);
  'done'?: (_kino_v1_EncodeDone | null);
  'file'?: (_kino_v1_LiveFile | null);
  'renditionStarted'?: (_kino_v1_LiveRenditionStarted | null);
  'event'?: "progress"|"done"|"file"|"renditionStarted";
}

export interface EncodeEvent__Output {
  'progress'?: (_kino_v1_EncodeProgress__Output | null);
  'done'?: (_kino_v1_EncodeDone__Output | null);
  'file'?: (_kino_v1_LiveFile__Output | null);
  'renditionStarted'?: (_kino_v1_LiveRenditionStarted__Output | null);
  'event'?: "progress"|"done"|"file"|"renditionStarted";
}
