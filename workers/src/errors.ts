// One error class per condition a node reports, and the one function that maps them to gRPC
// statuses. The orchestrator decides from the status: INVALID_ARGUMENT fails the video for good,
// RESOURCE_EXHAUSTED and UNAVAILABLE mean "try another node", PERMISSION_DENIED "presign again".
import { GrpcStatus, type grpc } from '@kino/proto';
import { FfmpegAbortedError, FfmpegError, NotAVideoError } from './ffmpeg/index.ts';

export abstract class JobError extends Error {
  abstract readonly code: GrpcStatus;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The caller did not present this farm's token. */
export class UnauthenticatedError extends JobError {
  readonly code = GrpcStatus.UNAUTHENTICATED;
}

/** Every slot is taken, or the node is draining: the orchestrator picks another node. */
export class NodeBusyError extends JobError {
  readonly code = GrpcStatus.RESOURCE_EXHAUSTED;
}

/** The request itself is malformed (a rendition the node cannot make, no upload URL for a file). */
export class InvalidRequestError extends JobError {
  readonly code = GrpcStatus.INVALID_ARGUMENT;
}

/** The source is unreadable, empty or not a video: retrying will not change that. */
export class InvalidSourceError extends JobError {
  readonly code = GrpcStatus.INVALID_ARGUMENT;
}

/** Storage answered 404 for the source. */
export class SourceNotFoundError extends JobError {
  readonly code = GrpcStatus.NOT_FOUND;
}

/** The requested thumbnail timestamp has no frame (past the end of the video). */
export class TimestampOutOfRangeError extends JobError {
  readonly code = GrpcStatus.OUT_OF_RANGE;
}

/** Storage refused a presigned URL (expired, tampered, wrong Content-Type). */
export class UrlRefusedError extends JobError {
  readonly code = GrpcStatus.PERMISSION_DENIED;
}

/** Storage could not be reached, or answered 5xx: worth a retry. */
export class StorageUnavailableError extends JobError {
  readonly code = GrpcStatus.UNAVAILABLE;
}

/** The caller cancelled the call; ffmpeg was killed. */
export class JobCancelledError extends JobError {
  readonly code = GrpcStatus.CANCELLED;
}

/**
 * What ffmpeg's stderr says about reading an input URL, as a JobError, or undefined when the
 * failure is not about the input (then it is an internal error of the encode).
 */
export function classifyInputFailure(stderr: string): JobError | undefined {
  if (/Server returned 404|HTTP error 404/.test(stderr)) return new SourceNotFoundError('the source object does not exist');
  if (/Server returned (400|401|403)|HTTP error 403|access denied/i.test(stderr)) {
    return new UrlRefusedError('storage refused the source URL (expired or invalid presigned URL)');
  }
  // ffmpeg reads with `Range: bytes=0-`, which storage answers 416 for an empty object.
  if (/Server returned 4XX Client Error|Server returned 416/.test(stderr)) {
    return new InvalidSourceError('the source is empty or cannot be read (storage answered 4xx to a ranged read)');
  }
  if (/Server returned 5(\d\d|XX)|Connection refused|Connection timed out|Network is unreachable|Failed to resolve|Connection reset/.test(stderr)) {
    return new StorageUnavailableError(`storage unreachable: ${stderr.trim().split('\n').pop() ?? ''}`);
  }
  if (/Invalid data found when processing input|moov atom not found|could not find codec parameters|End of file|no such file|Invalid argument|does not contain any stream/i.test(stderr)) {
    return new InvalidSourceError(`the source is not a readable video: ${stderr.trim().split('\n').pop() ?? ''}`);
  }
  return undefined;
}

/** Normalizes anything a job threw into a JobError (or leaves it for the INTERNAL fallback). */
export function asJobError(error: unknown): JobError | undefined {
  if (error instanceof JobError) return error;
  if (error instanceof FfmpegAbortedError) return new JobCancelledError('the job was cancelled');
  if (error instanceof NotAVideoError) return new InvalidSourceError(error.message);
  if (error instanceof FfmpegError) return classifyInputFailure(error.stderrTail);
  return undefined;
}

/** The gRPC status a handler answers with. Internal errors keep their message: callers log it. */
export function toGrpcStatus(error: unknown): Partial<grpc.StatusObject> {
  const jobError = asJobError(error);
  if (jobError) return { code: jobError.code, details: jobError.message };
  return { code: GrpcStatus.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}
