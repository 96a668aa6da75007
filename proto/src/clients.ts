// Promise-shaped clients over the generated gRPC ones: what the orchestrator uses to drive a node
// (through the relay holding the node's connection: plaintext, between orchestrators on the private
// network), and what a node uses to talk to the registry (its Connect stream, heartbeats,
// deregistering, enrolling). A node authenticates with FarmAuth: the shared farm token on plaintext,
// or the farm's TLS credentials (farm-tls/credentials.ts builds them).
import type { Duplex } from 'node:stream';
import {
  EncodeServiceClient,
  NodeRegistryClient,
  grpc,
  tokenMetadataKey,
  nodeMetadataKey,
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
import type { LiveFile__Output } from './generated/kino/v1/LiveFile.ts';
import type { LiveRenditionStarted__Output } from './generated/kino/v1/LiveRenditionStarted.ts';
import type { StoryboardRequest } from './generated/kino/v1/StoryboardRequest.ts';
import type { StoryboardResult__Output } from './generated/kino/v1/StoryboardResult.ts';
import type { TranscribeRequest } from './generated/kino/v1/TranscribeRequest.ts';
import type { TranscribeResult__Output } from './generated/kino/v1/TranscribeResult.ts';
import type { ThumbnailRequest } from './generated/kino/v1/ThumbnailRequest.ts';
import type { ThumbnailResult__Output } from './generated/kino/v1/ThumbnailResult.ts';
import type { RaisePriorityRequest } from './generated/kino/v1/RaisePriorityRequest.ts';
import type { RaisePriorityResponse__Output } from './generated/kino/v1/RaisePriorityResponse.ts';
import type { RegisterRequest } from './generated/kino/v1/RegisterRequest.ts';
import type { RegistryFrame__Output } from './generated/kino/v1/RegistryFrame.ts';
import type { NodeFrame } from './generated/kino/v1/NodeFrame.ts';
import { tunnelOver } from './tunnel.ts';
import type { RegisterResponse__Output } from './generated/kino/v1/RegisterResponse.ts';
import type { HeartbeatRequest } from './generated/kino/v1/HeartbeatRequest.ts';
import type { HeartbeatResponse__Output } from './generated/kino/v1/HeartbeatResponse.ts';
import type { EnrollRequest } from './generated/kino/v1/EnrollRequest.ts';
import type { EnrollResponse__Output } from './generated/kino/v1/EnrollResponse.ts';
import type { RenewRequest } from './generated/kino/v1/RenewRequest.ts';
import type { RenewResponse__Output } from './generated/kino/v1/RenewResponse.ts';

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

/** An Encode call's options: its events on the way, before `done`. */
export interface EncodeCallOptions extends CallOptions {
  onProgress?: (progress: EncodeProgress__Output) => void;
  /**
   * A broadcast's events (LiveEncode): each closed file's pieces and each rung's start, in order. The
   * stream is paused while the returned promise runs (the file is being stored), so they stay in order
   * and a node never runs far ahead of storage.
   */
  onLive?: (event: { file: LiveFile__Output } | { renditionStarted: LiveRenditionStarted__Output }) => Promise<void>;
}

/**
 * Each call of an EncodeClient rejects with a NodeJobFailure when the node answered with a failure
 * (its `reason` says why: INVALID_SOURCE, STORAGE_UNAVAILABLE, NODE_BUSY, ...). Anything else means
 * the node did not answer: a grpc.ServiceError of the transport (connection refused or dropped,
 * deadline, cancelled), or an EncodeStreamEndedError.
 */
export interface EncodeClient {
  /** HOST:PORT of the relay the calls go through. */
  readonly address: string;
  readonly nodeId: string;
  /** ffprobe of `inputUrl` on the node. An unreadable, empty or non-video input fails with INVALID_SOURCE. */
  probe(request: ProbeRequest, options?: CallOptions): Promise<ProbeResult__Output>;
  /**
   * One encode, start to end: resolves with the `done` event once every output is uploaded, and
   * calls `onProgress` for each progress event on the way (at most about twice a second).
   * A node with no free slot (or draining) fails with NODE_BUSY.
   */
  encode(request: EncodeRequest, options?: EncodeCallOptions): Promise<EncodeDone__Output>;
  /** One JPEG at a timestamp, uploaded to `outputUrl`. */
  thumbnail(request: ThumbnailRequest, options?: CallOptions): Promise<ThumbnailResult__Output>;
  storyboard(request: StoryboardRequest, options?: CallOptions): Promise<StoryboardResult__Output>;
  /** Captions from the source's speech: a WebVTT file and the words, uploaded to their URLs. */
  transcribe(request: TranscribeRequest, options?: CallOptions): Promise<TranscribeResult__Output>;
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

/**
 * A client of encode node `nodeId` through the relay at `address` (HOST:PORT: the orchestrator that
 * holds the node's Connect stream), presenting the shared farm `token` as `x-kino-token` on a farm
 * without TLS (a node with its own credential takes what comes through its connection).
 */
export function createEncodeClient(address: string, token: string | undefined, nodeId: string): EncodeClient {
  const client = new EncodeServiceClient(address, grpc.credentials.createInsecure(), channelOptions);
  const metadata = () => {
    const m = new grpc.Metadata();
    if (token !== undefined) m.set(tokenMetadataKey, token);
    m.set(nodeMetadataKey, nodeId);
    return m;
  };
  return {
    address,
    nodeId,
    grpc: client,
    probe: (request, options) => unary(client.probe.bind(client), request, metadata(), options),
    thumbnail: (request, options) => unary(client.thumbnail.bind(client), request, metadata(), options),
    storyboard: (request, options) => unary(client.storyboard.bind(client), request, metadata(), options),
    transcribe: (request, options) => unary(client.transcribe.bind(client), request, metadata(), options),
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
        const onLive = (live: Parameters<NonNullable<EncodeCallOptions['onLive']>>[0]) => {
          const handle = options?.onLive;
          if (!handle) return;
          call.pause();
          handle(live).then(
            () => call.resume(),
            (error: unknown) => {
              settle(error instanceof Error ? error : new Error(String(error)));
              call.cancel();
            },
          );
        };
        call.on('data', (event: EncodeEvent__Output) => {
          if (event.event === 'progress' && event.progress) options?.onProgress?.(event.progress);
          else if (event.event === 'done' && event.done) done = event.done;
          else if (event.event === 'file' && event.file) onLive({ file: event.file });
          else if (event.event === 'renditionStarted' && event.renditionStarted)
            onLive({ renditionStarted: event.renditionStarted });
        });
        call.on('error', (error: Error) => settle(error));
        call.on('end', () => settle());
      });
    },
    close: () => client.close(),
  };
}

/** A node's open Connect stream: the registry's welcome, and the tunnel its EncodeService runs in. */
export interface NodeConnection {
  readonly welcome: RegisterResponse__Output;
  /** The bytes of the HTTP/2 connection the orchestrators call the node on (grpc.Server connection injector). */
  readonly tunnel: Duplex;
  /** Resolves when the stream is over (the registry went away, the network broke, or close()). */
  readonly ended: Promise<void>;
  close(): void;
}

export interface RegistryClient {
  readonly address: string;
  /**
   * Opens the node's Connect stream and says hello (registers): resolves once the registry welcomed
   * it; rejects as a failed call (UNAUTHENTICATED, INVALID_ARGUMENT, UNAVAILABLE, ...) otherwise.
   */
  connect(request: Omit<RegisterRequest, 'token' | 'address'>, options?: CallOptions): Promise<NodeConnection>;
  heartbeat(request: Omit<HeartbeatRequest, 'token'>, options?: CallOptions): Promise<HeartbeatResponse__Output>;
  deregister(nodeId: string, options?: CallOptions): Promise<void>;
  /** Trades an enrollment token for the node's certificate (over TLS, before the node has one). */
  enroll(request: EnrollRequest, options?: CallOptions): Promise<EnrollResponse__Output>;
  /** Trades the node's current certificate (this channel's) for a new one, for the key pair of the request. */
  renew(request: RenewRequest, options?: CallOptions): Promise<RenewResponse__Output>;
  close(): void;
  readonly grpc: NodeRegistryGrpcClient;
}

/** Opens a Connect stream on `client`, sends `hello` and waits for the welcome. */
function openConnection(
  client: NodeRegistryGrpcClient,
  hello: RegisterRequest,
  options: CallOptions | undefined,
): Promise<NodeConnection> {
  const call = client.connect();
  const ended = new Promise<void>((resolve) => {
    call.on('close', resolve);
    call.on('error', () => resolve());
  });
  return new Promise((resolve, reject) => {
    const timer = options?.timeoutMs ? setTimeout(() => call.cancel(), options.timeoutMs) : undefined;
    const detach = cancelOnAbort(call, options?.signal);
    const fail = (error: Error) => {
      clearTimeout(timer);
      detach();
      reject(error);
    };
    call.on('error', fail);
    call.on('end', () => fail(new Error('the registry closed the connection without a welcome')));
    const onFrame = (frame: RegistryFrame__Output) => {
      if (frame.frame !== 'welcome' || !frame.welcome) return;
      call.off('data', onFrame);
      call.off('error', fail);
      // Errors after the welcome end the stream: `ended` says so.
      call.on('error', () => {});
      clearTimeout(timer);
      detach();
      const tunnel = tunnelOver<NodeFrame>(call, () => call.cancel());
      resolve({ welcome: frame.welcome, tunnel, ended, close: () => call.cancel() });
    };
    call.on('data', onFrame);
    call.write({ hello });
  });
}

/** A client of the control plane's NodeRegistry at `address` (HOST:PORT); a shared farm token goes in each request body. */
export function createRegistryClient(address: string, auth: FarmAuth): RegistryClient {
  // Keepalive pings notice a registry whose host vanished: the node connects again elsewhere.
  const client = new NodeRegistryClient(address, channelCredentialsOf(auth), channelOptions);
  const token = typeof auth === 'string' ? auth : '';
  const metadata = new grpc.Metadata();
  return {
    address,
    grpc: client,
    connect: (request, options) => openConnection(client, { ...request, token }, options),
    heartbeat: (request, options) => unary(client.heartbeat.bind(client), { ...request, token }, metadata, options),
    async deregister(nodeId, options) {
      await unary(client.deregister.bind(client), { token, nodeId }, metadata, options);
    },
    enroll: (request, options) => unary(client.enroll.bind(client), request, metadata, options),
    renew: (request, options) => unary(client.renew.bind(client), request, metadata, options),
    close: () => client.close(),
  };
}
