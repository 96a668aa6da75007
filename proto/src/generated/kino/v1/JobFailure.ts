// Original file: kino.proto

import type { FailureReason as _kino_v1_FailureReason, FailureReason__Output as _kino_v1_FailureReason__Output } from '../../kino/v1/FailureReason.ts';

/**
 * Carried in the trailing metadata `kino-job-failure-bin` of every call a node fails.
 */
export interface JobFailure {
  'reason'?: (_kino_v1_FailureReason);
  /**
   * for people: logs and a video's failure reason; URLs redacted
   */
  'detail'?: (string);
}

/**
 * Carried in the trailing metadata `kino-job-failure-bin` of every call a node fails.
 */
export interface JobFailure__Output {
  'reason': (_kino_v1_FailureReason__Output);
  /**
   * for people: logs and a video's failure reason; URLs redacted
   */
  'detail': (string);
}
