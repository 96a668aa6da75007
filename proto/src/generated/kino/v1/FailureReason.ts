// Original file: kino.proto

/**
 * Why a node failed a job. Each reason comes with a fixed gRPC status code (in brackets), the one
 * nodes answered with before JobFailure existed, so a caller that reads only the code still works.
 */
export const FailureReason = {
  FAILURE_REASON_UNSPECIFIED: 'FAILURE_REASON_UNSPECIFIED',
  /**
   * [INVALID_ARGUMENT] the request itself is malformed: final
   */
  INVALID_REQUEST: 'INVALID_REQUEST',
  /**
   * [INVALID_ARGUMENT] unreadable, empty or not a video: final
   */
  INVALID_SOURCE: 'INVALID_SOURCE',
  /**
   * [NOT_FOUND] storage has no object at the input URL: final
   */
  SOURCE_NOT_FOUND: 'SOURCE_NOT_FOUND',
  /**
   * [PERMISSION_DENIED] storage refused a presigned URL: presign again
   */
  URL_REFUSED: 'URL_REFUSED',
  /**
   * [UNAVAILABLE] storage unreachable or 5xx: retry later, the node is fine
   */
  STORAGE_UNAVAILABLE: 'STORAGE_UNAVAILABLE',
  /**
   * [INTERNAL] ffmpeg failed for another reason: retry, a few times
   */
  FFMPEG_FAILED: 'FFMPEG_FAILED',
  /**
   * [RESOURCE_EXHAUSTED] no free slot, or draining: wait for capacity
   */
  NODE_BUSY: 'NODE_BUSY',
  /**
   * [OUT_OF_RANGE] the thumbnail's timestamp has no frame: final
   */
  TIMESTAMP_OUT_OF_RANGE: 'TIMESTAMP_OUT_OF_RANGE',
  /**
   * [CANCELLED] the caller cancelled; ffmpeg was killed
   */
  CANCELLED: 'CANCELLED',
  /**
   * [UNAUTHENTICATED] no or wrong farm token
   */
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  /**
   * [INTERNAL] anything else on the node: retry, a few times
   */
  INTERNAL: 'INTERNAL',
} as const;

/**
 * Why a node failed a job. Each reason comes with a fixed gRPC status code (in brackets), the one
 * nodes answered with before JobFailure existed, so a caller that reads only the code still works.
 */
export type FailureReason =
  | 'FAILURE_REASON_UNSPECIFIED'
  | 0
  /**
   * [INVALID_ARGUMENT] the request itself is malformed: final
   */
  | 'INVALID_REQUEST'
  | 1
  /**
   * [INVALID_ARGUMENT] unreadable, empty or not a video: final
   */
  | 'INVALID_SOURCE'
  | 2
  /**
   * [NOT_FOUND] storage has no object at the input URL: final
   */
  | 'SOURCE_NOT_FOUND'
  | 3
  /**
   * [PERMISSION_DENIED] storage refused a presigned URL: presign again
   */
  | 'URL_REFUSED'
  | 4
  /**
   * [UNAVAILABLE] storage unreachable or 5xx: retry later, the node is fine
   */
  | 'STORAGE_UNAVAILABLE'
  | 5
  /**
   * [INTERNAL] ffmpeg failed for another reason: retry, a few times
   */
  | 'FFMPEG_FAILED'
  | 6
  /**
   * [RESOURCE_EXHAUSTED] no free slot, or draining: wait for capacity
   */
  | 'NODE_BUSY'
  | 7
  /**
   * [OUT_OF_RANGE] the thumbnail's timestamp has no frame: final
   */
  | 'TIMESTAMP_OUT_OF_RANGE'
  | 8
  /**
   * [CANCELLED] the caller cancelled; ffmpeg was killed
   */
  | 'CANCELLED'
  | 9
  /**
   * [UNAUTHENTICATED] no or wrong farm token
   */
  | 'UNAUTHENTICATED'
  | 10
  /**
   * [INTERNAL] anything else on the node: retry, a few times
   */
  | 'INTERNAL'
  | 11

/**
 * Why a node failed a job. Each reason comes with a fixed gRPC status code (in brackets), the one
 * nodes answered with before JobFailure existed, so a caller that reads only the code still works.
 */
export type FailureReason__Output = typeof FailureReason[keyof typeof FailureReason]
