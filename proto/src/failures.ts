// How a node says why it failed a job (kino.proto, FailureReason and JobFailure): a typed reason in
// the binary trailing metadata `kino-job-failure-bin`, beside the gRPC status code that goes with
// it. The node attaches it (jobFailureStatus); the client turns it into a NodeJobFailure
// (jobFailureOf) that callers switch on. No one matches the status text.
import protobuf from 'protobufjs';
import { grpc, protoPath } from './definitions.ts';
import type { FailureReason__Output } from './generated/kino/v1/FailureReason.ts';
import type { JobFailure__Output } from './generated/kino/v1/JobFailure.ts';

export type { FailureReason__Output as FailureReason };

export const jobFailureMetadataKey = 'kino-job-failure-bin';

// proto-loader serializes only what a method sends; JobFailure travels in metadata, so it is
// (de)serialized with protobufjs, from the same kino.proto.
const jobFailureType = protobuf.loadSync(protoPath).lookupType('kino.v1.JobFailure');

/** The status code that goes with each reason: the codes nodes answered with before JobFailure existed. */
const statusOfReason: Record<FailureReason__Output, grpc.status> = {
  FAILURE_REASON_UNSPECIFIED: grpc.status.UNKNOWN,
  INVALID_REQUEST: grpc.status.INVALID_ARGUMENT,
  INVALID_SOURCE: grpc.status.INVALID_ARGUMENT,
  SOURCE_NOT_FOUND: grpc.status.NOT_FOUND,
  URL_REFUSED: grpc.status.PERMISSION_DENIED,
  STORAGE_UNAVAILABLE: grpc.status.UNAVAILABLE,
  FFMPEG_FAILED: grpc.status.INTERNAL,
  NODE_BUSY: grpc.status.RESOURCE_EXHAUSTED,
  TIMESTAMP_OUT_OF_RANGE: grpc.status.OUT_OF_RANGE,
  CANCELLED: grpc.status.CANCELLED,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  INTERNAL: grpc.status.INTERNAL,
};

export function grpcStatusOf(reason: FailureReason__Output): grpc.status {
  return statusOfReason[reason];
}

/** What a node's handler fails a call with: the reason's status code, the detail, and the JobFailure trailer. */
export function jobFailureStatus(reason: FailureReason__Output, detail: string): grpc.StatusObject {
  const metadata = new grpc.Metadata();
  const failure = jobFailureType.fromObject({ reason, detail });
  metadata.set(jobFailureMetadataKey, Buffer.from(jobFailureType.encode(failure).finish()));
  return { code: statusOfReason[reason], details: detail, metadata };
}

/**
 * A job the node answered with a failure: `reason` says what went wrong, `details` says it for
 * people. Still a grpc.ServiceError (code, details, metadata of the call).
 */
export class NodeJobFailure extends Error implements grpc.ServiceError {
  readonly code: grpc.status;
  readonly details: string;
  readonly metadata: grpc.Metadata;
  readonly reason: FailureReason__Output;
  constructor(reason: FailureReason__Output, call: grpc.ServiceError) {
    super(call.message);
    this.reason = reason;
    this.name = 'NodeJobFailure';
    this.code = call.code;
    this.details = call.details;
    this.metadata = call.metadata;
  }
}

/** The node's JobFailure in a failed call's trailers, or undefined when the node did not answer (a transport failure). */
export function jobFailureOf(error: grpc.ServiceError): NodeJobFailure | undefined {
  const [bytes] = error.metadata?.get(jobFailureMetadataKey) ?? [];
  if (!Buffer.isBuffer(bytes)) return undefined;
  let failure: JobFailure__Output;
  try {
    failure = jobFailureType.toObject(jobFailureType.decode(bytes), {
      enums: String,
      defaults: true,
    }) as JobFailure__Output;
  } catch {
    return undefined;
  }
  return new NodeJobFailure(failure.reason, {
    ...error,
    message: error.message,
    details: failure.detail || error.details,
  });
}
