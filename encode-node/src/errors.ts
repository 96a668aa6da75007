// One error class per condition a node reports, each with its FailureReason (kino.proto), and the
// one function that turns whatever a job threw into the failure the caller receives: the reason in
// the `kino-job-failure-bin` trailer, beside the status code that goes with it. The orchestrator
// decides on the reason: INVALID_SOURCE fails the video for good, NODE_BUSY waits for capacity,
// STORAGE_UNAVAILABLE retries later without blaming the node, URL_REFUSED presigns again.
import {
  grpcStatusOf,
  jobFailureStatus,
  redactUrls,
  type FailureReason,
  type GrpcStatus,
  type grpc,
} from '@kino/proto';
import { FfmpegAbortedError, FfmpegError, NotAVideoError } from '@kino/ffmpeg';

export abstract class JobError extends Error {
  abstract readonly reason: FailureReason;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }

  /** The gRPC status code that goes with the reason. */
  get code(): GrpcStatus {
    return grpcStatusOf(this.reason);
  }
}

/** The caller did not present this farm's token. */
export class UnauthenticatedError extends JobError {
  readonly reason = 'UNAUTHENTICATED';
}

/** Every slot is taken, or the node is draining: the orchestrator picks another node. */
export class NodeBusyError extends JobError {
  readonly reason = 'NODE_BUSY';
}

/** The request itself is malformed (a rendition the node cannot make, no upload URL for a file). */
export class InvalidRequestError extends JobError {
  readonly reason = 'INVALID_REQUEST';
}

/** The source is unreadable, empty or not a video: retrying will not change that. */
export class InvalidSourceError extends JobError {
  readonly reason = 'INVALID_SOURCE';
}

/** Storage answered 404 for the source. */
export class SourceNotFoundError extends JobError {
  readonly reason = 'SOURCE_NOT_FOUND';
}

/** The requested thumbnail timestamp has no frame (past the end of the video). */
export class TimestampOutOfRangeError extends JobError {
  readonly reason = 'TIMESTAMP_OUT_OF_RANGE';
}

/** Storage refused a presigned URL (expired, tampered, wrong Content-Type). */
export class UrlRefusedError extends JobError {
  readonly reason = 'URL_REFUSED';
}

/** Storage could not be reached, or answered 5xx: worth a retry. */
export class StorageUnavailableError extends JobError {
  readonly reason = 'STORAGE_UNAVAILABLE';
}

/** ffmpeg failed, and not because of its input: worth another try, a few times. */
export class FfmpegFailedError extends JobError {
  readonly reason = 'FFMPEG_FAILED';
}

/** The caller cancelled the call; ffmpeg was killed. */
export class JobCancelledError extends JobError {
  readonly reason = 'CANCELLED';
}

/**
 * The node abandoned the job (NodeJobs.abandonAll): the registry had marked it gone, and the job's
 * work moved to another node. A cancellation as the caller's is, wherever it lands.
 */
export class JobAbandonedError extends JobError {
  readonly reason = 'CANCELLED';
}

/**
 * What ffmpeg's stderr says about reading an input URL, as a JobError, or undefined when the
 * failure is not about the input (then ffmpeg itself failed: FFMPEG_FAILED).
 */
export function classifyInputFailure(stderr: string): JobError | undefined {
  if (/Server returned 404|HTTP error 404/.test(stderr))
    return new SourceNotFoundError('the source object does not exist');
  if (/Server returned (400|401|403)|HTTP error 403|access denied/i.test(stderr)) {
    return new UrlRefusedError('storage refused the source URL (expired or invalid presigned URL)');
  }
  // ffmpeg reads with `Range: bytes=0-`, which storage answers 416 for an empty object.
  if (/Server returned 4XX Client Error|Server returned 416/.test(stderr)) {
    return new InvalidSourceError('the source is empty or cannot be read (storage answered 4xx to a ranged read)');
  }
  if (
    /Server returned 5(\d\d|XX)|Connection refused|Connection timed out|Network is unreachable|Failed to resolve|Connection reset/.test(
      stderr,
    )
  ) {
    return new StorageUnavailableError(`storage unreachable: ${stderr.trim().split('\n').pop() ?? ''}`);
  }
  if (
    /Invalid data found when processing input|moov atom not found|could not find codec parameters|End of file|no such file|Invalid argument|does not contain any stream/i.test(
      stderr,
    )
  ) {
    return new InvalidSourceError(`the source is not a readable video: ${stderr.trim().split('\n').pop() ?? ''}`);
  }
  return undefined;
}

/** Normalizes anything a job threw into a JobError, or undefined for an internal error of the node. */
export function asJobError(error: unknown): JobError | undefined {
  if (error instanceof JobError) return error;
  if (error instanceof FfmpegAbortedError) return new JobCancelledError('the job was cancelled');
  if (error instanceof NotAVideoError) return new InvalidSourceError(error.message);
  if (error instanceof FfmpegError)
    return classifyInputFailure(error.stderrTail) ?? new FfmpegFailedError(error.message);
  return undefined;
}

/**
 * The failure a handler answers with: the JobError's reason (INTERNAL for anything else), its
 * status code and the JobFailure trailer. Internal errors keep their message: callers log it.
 */
export function toGrpcStatus(error: unknown): grpc.StatusObject {
  const jobError = asJobError(error);
  const detail = redactUrls(error instanceof Error ? (jobError ?? error).message : String(error));
  return jobFailureStatus(jobError?.reason ?? 'INTERNAL', detail);
}
