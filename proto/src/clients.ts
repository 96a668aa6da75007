// Promise-shaped clients over the generated gRPC ones: what the orchestrator uses to drive a node,
// and what a node uses to talk to the registry. Each authenticates with FarmAuth: the shared farm
// token on plaintext, or the farm's TLS credentials (farm-tls/credentials.ts builds them).
import {
  EncodeServiceClient,
  NodeRegistryClient,
  grpc,
  tokenMetadataKey,
  isServiceError,
  type EncodeServiceGrpcClient,
  type NodeRegistryGrpcClient,
} from './definitions.ts';
import { jobFailureOf, type NodeJobFailure } from './failures.ts';
import type { ProbeRequest } from './generated/kino/v1/ProbeRequest.ts';
import type { ProbeResult__Output } from './generated/kino/v1/ProbeResult.ts';
import type { EncodeRequest } from './generated/kino/v1/EncodeRequest.ts';
import type { EncodeEvent__Output } from './generated/kino/v1/EncodeEvent.ts';
import type { EncodeProgress__Output } from './generated/kino/v1/EncodeProgress.ts';
import type { EncodeDone__Output } from './generated/kino/v1/EncodeDone.ts';
import type { StoryboardRequest } from './generated/kino/v1/StoryboardRequest.ts';
import type { StoryboardResult__Output } from './generated/kino/v1/StoryboardResult.ts';
import type { ThumbnailRequest } from './generated/kino/v1/ThumbnailRequest.ts';
import type { ThumbnailResult__Output } from './generated/kino/v1/ThumbnailResult.ts';
import type { RaisePriorityRequest } from './generated/kino/v1/RaisePriorityRequest.ts';
import type { RaisePriorityResponse__Output } from './generated/kino/v1/RaisePriorityResponse.ts';
import type { RegisterRequest } from './generated/kino/v1/RegisterRequest.ts';
import type { RegisterResponse__Output } from './generated/kino/v1/RegisterResponse.ts';
import type { HeartbeatRequest } from './generated/kino/v1/HeartbeatRequest.ts';
import type { HeartbeatResponse__Output } from './generated/kino/v1/HeartbeatResponse.ts';
import type { EnrollRequest } from './generated/kino/v1/EnrollRequest.ts';
import type { EnrollResponse__Output } from './generated/kino/v1/EnrollResponse.ts';

/**
 * How a client authenticates: the shared farm token (a string: plaintext, the token on every call),
 * or TLS channel credentials of the farm, whose certificate is the credential.
 */
export type FarmAuth = string | grpc.ChannelCredentials;

function channelCredentialsOf(auth: FarmAuth): grpc.ChannelCredentials {
  return typeof auth === 'string' ? grpc.credentials.createInsecure() : auth;
}

export interface CallOptions {
  /** Aborting cancels the call; the node then kills its ffmpeg. The promise rejects with gRPC CANCELLED. */
  signal?: AbortSignal;
  /** gRPC deadline, from now. */
  timeoutMs?: number;
}

/**
 * Each call of an EncodeClient rejects with a NodeJobFailure when the node answered with a failure
 * (its `reason` says why: INVALID_SOURCE, STORAGE_UNAVAILABLE, NODE_BUSY, ...). Anything else means
 * the node did not answer: a grpc.ServiceError of the transport (connection refused or dropped,
 * deadline, cancelled), or an EncodeStreamEndedError.
 */
export interface EncodeClient {
  readonly address: string;
  /** ffprobe of `inputUrl` on the node. An unreadable, empty or non-video input fails with INVALID_SOURCE. */
  probe(request: ProbeRequest, options?: CallOptions): Promise<ProbeResult__Output>;
  /**
   * One encode, start to end: resolves with the `done` event once every output is uploaded, and
   * calls `onProgress` for each progress event on the way (at most about twice a second).
   * A node with no free slot (or draining) fails with NODE_BUSY.
   */
  encode(
    request: EncodeRequest,
    options?: CallOptions & { onProgress?: (progress: EncodeProgress__Output) => void },
  ): Promise<EncodeDone__Output>;
  /** One JPEG at a timestamp, uploaded to `outputUrl`. */
  thumbnail(request: ThumbnailRequest, options?: CallOptions): Promise<ThumbnailResult__Output>;
  storyboard(request: StoryboardRequest, options?: CallOptions): Promise<StoryboardResult__Output>;
  /** Runs a running encode's ffmpeg at the priority of urgent work from now on; `running` false: no such job runs there. */
  raisePriority(request: RaisePriorityRequest, options?: CallOptions): Promise<RaisePriorityResponse__Output>;
  close(): void;
  /** The underlying generated client, for anything the wrapper does not cover. */
  readonly grpc: EncodeServiceGrpcClient;
}

// Keepalive pings notice a node whose host vanished (no RST) while a long encode streams nothing.
const channelOptions: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 15_000,
  'grpc.keepalive_timeout_ms': 10_000,
};

/** The encode stream closed cleanly but without a `done` event: the node went away mid-job. */
export class EncodeStreamEndedError extends Error {
  constructor(address: string) {
    super(`encode stream from ${address} ended without a done event`);
    this.name = 'EncodeStreamEndedError';
  }
}

/** A failed call as the node meant it: its NodeJobFailure when it sent one, else the transport's error. */
function asNodeFailure(error: Error): NodeJobFailure | Error {
  return (isServiceError(error) && jobFailureOf(error)) || error;
}

function callOptionsFor(options: CallOptions | undefined): grpc.CallOptions {
  return options?.timeoutMs ? { deadline: Date.now() + options.timeoutMs } : {};
}

/** Cancels `call` when `signal` aborts; returns the function that detaches the listener. */
function cancelOnAbort(call: grpc.Call, signal: AbortSignal | undefined): () => void {
  if (!signal) return () => {};
  const cancel = () => call.cancel();
  if (signal.aborted) cancel();
  signal.addEventListener('abort', cancel, { once: true });
  return () => signal.removeEventListener('abort', cancel);
}

function unary<Req, Res>(
  method: (
    request: Req,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<Res>,
  ) => grpc.ClientUnaryCall,
  request: Req,
  metadata: grpc.Metadata,
  options: CallOptions | undefined,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    let detach = () => {};
    const call = method(request, metadata, callOptionsFor(options), (error, response) => {
      detach();
      if (error) reject(asNodeFailure(error));
      else resolve(response as Res);
    });
    detach = cancelOnAbort(call, options?.signal);
  });
}

/** A client of one encode node at `address` (HOST:PORT): over TLS, or presenting the farm token as `x-kino-token`. */
export function createEncodeClient(address: string, auth: FarmAuth): EncodeClient {
  const client = new EncodeServiceClient(address, channelCredentialsOf(auth), channelOptions);
  const metadata = () => {
    const m = new grpc.Metadata();
    if (typeof auth === 'string') m.set(tokenMetadataKey, auth);
    return m;
  };
  return {
    address,
    grpc: client,
    probe: (request, options) => unary(client.probe.bind(client), request, metadata(), options),
    thumbnail: (request, options) => unary(client.thumbnail.bind(client), request, metadata(), options),
    storyboard: (request, options) => unary(client.storyboard.bind(client), request, metadata(), options),
    raisePriority: (request, options) => unary(client.raisePriority.bind(client), request, metadata(), options),
    encode(request, options) {
      return new Promise((resolve, reject) => {
        const call = client.encode(request, metadata(), callOptionsFor(options));
        const detach = cancelOnAbort(call, options?.signal);
        let done: EncodeDone__Output | undefined;
        let settled = false;
        const settle = (error?: Error) => {
          if (settled) return;
          settled = true;
          detach();
          if (error) reject(asNodeFailure(error));
          else if (done) resolve(done);
          else reject(new EncodeStreamEndedError(address));
        };
        call.on('data', (event: EncodeEvent__Output) => {
          if (event.event === 'progress' && event.progress) options?.onProgress?.(event.progress);
          else if (event.event === 'done' && event.done) done = event.done;
        });
        call.on('error', (error: Error) => settle(error));
        call.on('end', () => settle());
      });
    },
    close: () => client.close(),
  };
}

export interface RegistryClient {
  readonly address: string;
  register(request: Omit<RegisterRequest, 'token'>, options?: CallOptions): Promise<RegisterResponse__Output>;
  heartbeat(request: Omit<HeartbeatRequest, 'token'>, options?: CallOptions): Promise<HeartbeatResponse__Output>;
  deregister(nodeId: string, options?: CallOptions): Promise<void>;
  /** Trades an enrollment token for the node's certificate (over TLS, before the node has one). */
  enroll(request: EnrollRequest, options?: CallOptions): Promise<EnrollResponse__Output>;
  close(): void;
  readonly grpc: NodeRegistryGrpcClient;
}

/** A client of the control plane's NodeRegistry at `address` (HOST:PORT); a shared farm token goes in each request body. */
export function createRegistryClient(address: string, auth: FarmAuth): RegistryClient {
  const client = new NodeRegistryClient(address, channelCredentialsOf(auth));
  const token = typeof auth === 'string' ? auth : '';
  const metadata = new grpc.Metadata();
  return {
    address,
    grpc: client,
    register: (request, options) => unary(client.register.bind(client), { ...request, token }, metadata, options),
    heartbeat: (request, options) => unary(client.heartbeat.bind(client), { ...request, token }, metadata, options),
    async deregister(nodeId, options) {
      await unary(client.deregister.bind(client), { token, nodeId }, metadata, options);
    },
    enroll: (request, options) => unary(client.enroll.bind(client), request, metadata, options),
    close: () => client.close(),
  };
}
