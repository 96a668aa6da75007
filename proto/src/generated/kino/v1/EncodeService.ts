// Original file: kino.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { EncodeEvent as _kino_v1_EncodeEvent, EncodeEvent__Output as _kino_v1_EncodeEvent__Output } from '../../kino/v1/EncodeEvent.ts';
import type { EncodeRequest as _kino_v1_EncodeRequest, EncodeRequest__Output as _kino_v1_EncodeRequest__Output } from '../../kino/v1/EncodeRequest.ts';
import type { ProbeRequest as _kino_v1_ProbeRequest, ProbeRequest__Output as _kino_v1_ProbeRequest__Output } from '../../kino/v1/ProbeRequest.ts';
import type { ProbeResult as _kino_v1_ProbeResult, ProbeResult__Output as _kino_v1_ProbeResult__Output } from '../../kino/v1/ProbeResult.ts';
import type { RaisePriorityRequest as _kino_v1_RaisePriorityRequest, RaisePriorityRequest__Output as _kino_v1_RaisePriorityRequest__Output } from '../../kino/v1/RaisePriorityRequest.ts';
import type { RaisePriorityResponse as _kino_v1_RaisePriorityResponse, RaisePriorityResponse__Output as _kino_v1_RaisePriorityResponse__Output } from '../../kino/v1/RaisePriorityResponse.ts';
import type { StoryboardRequest as _kino_v1_StoryboardRequest, StoryboardRequest__Output as _kino_v1_StoryboardRequest__Output } from '../../kino/v1/StoryboardRequest.ts';
import type { StoryboardResult as _kino_v1_StoryboardResult, StoryboardResult__Output as _kino_v1_StoryboardResult__Output } from '../../kino/v1/StoryboardResult.ts';
import type { ThumbnailRequest as _kino_v1_ThumbnailRequest, ThumbnailRequest__Output as _kino_v1_ThumbnailRequest__Output } from '../../kino/v1/ThumbnailRequest.ts';
import type { ThumbnailResult as _kino_v1_ThumbnailResult, ThumbnailResult__Output as _kino_v1_ThumbnailResult__Output } from '../../kino/v1/ThumbnailResult.ts';
import type { TranscribeRequest as _kino_v1_TranscribeRequest, TranscribeRequest__Output as _kino_v1_TranscribeRequest__Output } from '../../kino/v1/TranscribeRequest.ts';
import type { TranscribeResult as _kino_v1_TranscribeResult, TranscribeResult__Output as _kino_v1_TranscribeResult__Output } from '../../kino/v1/TranscribeResult.ts';

/**
 * Served by every encode node, inside the tunnel of its Connect stream (NodeRegistry below): a node
 * listens on no port. The orchestrators call it through the relay of the orchestrator holding the
 * node's stream, naming the node in metadata `x-kino-node`. The tunnel runs in the node's own
 * connection to the registry (over TLS with its certificate, or on plaintext with the shared farm
 * token, which callers then also present as metadata `x-kino-token`).
 * A node reads its input and writes its outputs only through the presigned URLs a request carries:
 * it never holds the bucket's credentials.
 * 
 * Failures: every call of this service the node itself fails carries a JobFailure
 * (below), serialized in the binary trailing metadata `kino-job-failure-bin`, beside a gRPC status
 * code (see FailureReason). Callers decide on the reason, never on the status text. A failed call
 * without that trailer was not answered by the node: the connection was refused, dropped or reset,
 * or the deadline passed; only then is the node taken for lost.
 */
export interface EncodeServiceClient extends grpc.Client {
  /**
   * Streams progress while ffmpeg runs, then one `done` event after every output is uploaded.
   */
  Encode(argument: _kino_v1_EncodeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_kino_v1_EncodeEvent__Output>;
  Encode(argument: _kino_v1_EncodeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_kino_v1_EncodeEvent__Output>;
  /**
   * Streams progress while ffmpeg runs, then one `done` event after every output is uploaded.
   */
  encode(argument: _kino_v1_EncodeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_kino_v1_EncodeEvent__Output>;
  encode(argument: _kino_v1_EncodeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_kino_v1_EncodeEvent__Output>;
  
  Probe(argument: _kino_v1_ProbeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_ProbeResult__Output>): grpc.ClientUnaryCall;
  Probe(argument: _kino_v1_ProbeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_ProbeResult__Output>): grpc.ClientUnaryCall;
  Probe(argument: _kino_v1_ProbeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_ProbeResult__Output>): grpc.ClientUnaryCall;
  Probe(argument: _kino_v1_ProbeRequest, callback: grpc.requestCallback<_kino_v1_ProbeResult__Output>): grpc.ClientUnaryCall;
  probe(argument: _kino_v1_ProbeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_ProbeResult__Output>): grpc.ClientUnaryCall;
  probe(argument: _kino_v1_ProbeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_ProbeResult__Output>): grpc.ClientUnaryCall;
  probe(argument: _kino_v1_ProbeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_ProbeResult__Output>): grpc.ClientUnaryCall;
  probe(argument: _kino_v1_ProbeRequest, callback: grpc.requestCallback<_kino_v1_ProbeResult__Output>): grpc.ClientUnaryCall;
  
  /**
   * Someone now waits for an encode that runs niced (a viewer asked for a segment of a background
   * run already running): its ffmpeg, and any it starts later, run at the priority of urgent work
   * from now on (docs/decisions/just-in-time.md).
   */
  RaisePriority(argument: _kino_v1_RaisePriorityRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RaisePriorityResponse__Output>): grpc.ClientUnaryCall;
  RaisePriority(argument: _kino_v1_RaisePriorityRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_RaisePriorityResponse__Output>): grpc.ClientUnaryCall;
  RaisePriority(argument: _kino_v1_RaisePriorityRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RaisePriorityResponse__Output>): grpc.ClientUnaryCall;
  RaisePriority(argument: _kino_v1_RaisePriorityRequest, callback: grpc.requestCallback<_kino_v1_RaisePriorityResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Someone now waits for an encode that runs niced (a viewer asked for a segment of a background
   * run already running): its ffmpeg, and any it starts later, run at the priority of urgent work
   * from now on (docs/decisions/just-in-time.md).
   */
  raisePriority(argument: _kino_v1_RaisePriorityRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RaisePriorityResponse__Output>): grpc.ClientUnaryCall;
  raisePriority(argument: _kino_v1_RaisePriorityRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_RaisePriorityResponse__Output>): grpc.ClientUnaryCall;
  raisePriority(argument: _kino_v1_RaisePriorityRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RaisePriorityResponse__Output>): grpc.ClientUnaryCall;
  raisePriority(argument: _kino_v1_RaisePriorityRequest, callback: grpc.requestCallback<_kino_v1_RaisePriorityResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Sprite sheets of frames at a fixed interval and the WebVTT mapping times to their tiles
   * (@kino/proto/contract storyboard.ts). Short and takes no encode slot, like Thumbnail.
   */
  Storyboard(argument: _kino_v1_StoryboardRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_StoryboardResult__Output>): grpc.ClientUnaryCall;
  Storyboard(argument: _kino_v1_StoryboardRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_StoryboardResult__Output>): grpc.ClientUnaryCall;
  Storyboard(argument: _kino_v1_StoryboardRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_StoryboardResult__Output>): grpc.ClientUnaryCall;
  Storyboard(argument: _kino_v1_StoryboardRequest, callback: grpc.requestCallback<_kino_v1_StoryboardResult__Output>): grpc.ClientUnaryCall;
  /**
   * Sprite sheets of frames at a fixed interval and the WebVTT mapping times to their tiles
   * (@kino/proto/contract storyboard.ts). Short and takes no encode slot, like Thumbnail.
   */
  storyboard(argument: _kino_v1_StoryboardRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_StoryboardResult__Output>): grpc.ClientUnaryCall;
  storyboard(argument: _kino_v1_StoryboardRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_StoryboardResult__Output>): grpc.ClientUnaryCall;
  storyboard(argument: _kino_v1_StoryboardRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_StoryboardResult__Output>): grpc.ClientUnaryCall;
  storyboard(argument: _kino_v1_StoryboardRequest, callback: grpc.requestCallback<_kino_v1_StoryboardResult__Output>): grpc.ClientUnaryCall;
  
  Thumbnail(argument: _kino_v1_ThumbnailRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_ThumbnailResult__Output>): grpc.ClientUnaryCall;
  Thumbnail(argument: _kino_v1_ThumbnailRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_ThumbnailResult__Output>): grpc.ClientUnaryCall;
  Thumbnail(argument: _kino_v1_ThumbnailRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_ThumbnailResult__Output>): grpc.ClientUnaryCall;
  Thumbnail(argument: _kino_v1_ThumbnailRequest, callback: grpc.requestCallback<_kino_v1_ThumbnailResult__Output>): grpc.ClientUnaryCall;
  thumbnail(argument: _kino_v1_ThumbnailRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_ThumbnailResult__Output>): grpc.ClientUnaryCall;
  thumbnail(argument: _kino_v1_ThumbnailRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_ThumbnailResult__Output>): grpc.ClientUnaryCall;
  thumbnail(argument: _kino_v1_ThumbnailRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_ThumbnailResult__Output>): grpc.ClientUnaryCall;
  thumbnail(argument: _kino_v1_ThumbnailRequest, callback: grpc.requestCallback<_kino_v1_ThumbnailResult__Output>): grpc.ClientUnaryCall;
  
  /**
   * Captions from speech (docs/decisions/captions.md): the source's sound through the node's speech
   * engine, written as one WebVTT file. Takes an encode slot: it keeps a core busy for a third of the
   * video's length. Only a node that reported the language (RegisterRequest.transcribe_languages) gets it.
   */
  Transcribe(argument: _kino_v1_TranscribeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_TranscribeResult__Output>): grpc.ClientUnaryCall;
  Transcribe(argument: _kino_v1_TranscribeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_TranscribeResult__Output>): grpc.ClientUnaryCall;
  Transcribe(argument: _kino_v1_TranscribeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_TranscribeResult__Output>): grpc.ClientUnaryCall;
  Transcribe(argument: _kino_v1_TranscribeRequest, callback: grpc.requestCallback<_kino_v1_TranscribeResult__Output>): grpc.ClientUnaryCall;
  /**
   * Captions from speech (docs/decisions/captions.md): the source's sound through the node's speech
   * engine, written as one WebVTT file. Takes an encode slot: it keeps a core busy for a third of the
   * video's length. Only a node that reported the language (RegisterRequest.transcribe_languages) gets it.
   */
  transcribe(argument: _kino_v1_TranscribeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_TranscribeResult__Output>): grpc.ClientUnaryCall;
  transcribe(argument: _kino_v1_TranscribeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_TranscribeResult__Output>): grpc.ClientUnaryCall;
  transcribe(argument: _kino_v1_TranscribeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_TranscribeResult__Output>): grpc.ClientUnaryCall;
  transcribe(argument: _kino_v1_TranscribeRequest, callback: grpc.requestCallback<_kino_v1_TranscribeResult__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Served by every encode node, inside the tunnel of its Connect stream (NodeRegistry below): a node
 * listens on no port. The orchestrators call it through the relay of the orchestrator holding the
 * node's stream, naming the node in metadata `x-kino-node`. The tunnel runs in the node's own
 * connection to the registry (over TLS with its certificate, or on plaintext with the shared farm
 * token, which callers then also present as metadata `x-kino-token`).
 * A node reads its input and writes its outputs only through the presigned URLs a request carries:
 * it never holds the bucket's credentials.
 * 
 * Failures: every call of this service the node itself fails carries a JobFailure
 * (below), serialized in the binary trailing metadata `kino-job-failure-bin`, beside a gRPC status
 * code (see FailureReason). Callers decide on the reason, never on the status text. A failed call
 * without that trailer was not answered by the node: the connection was refused, dropped or reset,
 * or the deadline passed; only then is the node taken for lost.
 */
export interface EncodeServiceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Streams progress while ffmpeg runs, then one `done` event after every output is uploaded.
   */
  Encode: grpc.handleServerStreamingCall<_kino_v1_EncodeRequest__Output, _kino_v1_EncodeEvent>;
  
  Probe: grpc.handleUnaryCall<_kino_v1_ProbeRequest__Output, _kino_v1_ProbeResult>;
  
  /**
   * Someone now waits for an encode that runs niced (a viewer asked for a segment of a background
   * run already running): its ffmpeg, and any it starts later, run at the priority of urgent work
   * from now on (docs/decisions/just-in-time.md).
   */
  RaisePriority: grpc.handleUnaryCall<_kino_v1_RaisePriorityRequest__Output, _kino_v1_RaisePriorityResponse>;
  
  /**
   * Sprite sheets of frames at a fixed interval and the WebVTT mapping times to their tiles
   * (@kino/proto/contract storyboard.ts). Short and takes no encode slot, like Thumbnail.
   */
  Storyboard: grpc.handleUnaryCall<_kino_v1_StoryboardRequest__Output, _kino_v1_StoryboardResult>;
  
  Thumbnail: grpc.handleUnaryCall<_kino_v1_ThumbnailRequest__Output, _kino_v1_ThumbnailResult>;
  
  /**
   * Captions from speech (docs/decisions/captions.md): the source's sound through the node's speech
   * engine, written as one WebVTT file. Takes an encode slot: it keeps a core busy for a third of the
   * video's length. Only a node that reported the language (RegisterRequest.transcribe_languages) gets it.
   */
  Transcribe: grpc.handleUnaryCall<_kino_v1_TranscribeRequest__Output, _kino_v1_TranscribeResult>;
  
}

export interface EncodeServiceDefinition extends grpc.ServiceDefinition {
  Encode: MethodDefinition<_kino_v1_EncodeRequest, _kino_v1_EncodeEvent, _kino_v1_EncodeRequest__Output, _kino_v1_EncodeEvent__Output>
  Probe: MethodDefinition<_kino_v1_ProbeRequest, _kino_v1_ProbeResult, _kino_v1_ProbeRequest__Output, _kino_v1_ProbeResult__Output>
  RaisePriority: MethodDefinition<_kino_v1_RaisePriorityRequest, _kino_v1_RaisePriorityResponse, _kino_v1_RaisePriorityRequest__Output, _kino_v1_RaisePriorityResponse__Output>
  Storyboard: MethodDefinition<_kino_v1_StoryboardRequest, _kino_v1_StoryboardResult, _kino_v1_StoryboardRequest__Output, _kino_v1_StoryboardResult__Output>
  Thumbnail: MethodDefinition<_kino_v1_ThumbnailRequest, _kino_v1_ThumbnailResult, _kino_v1_ThumbnailRequest__Output, _kino_v1_ThumbnailResult__Output>
  Transcribe: MethodDefinition<_kino_v1_TranscribeRequest, _kino_v1_TranscribeResult, _kino_v1_TranscribeRequest__Output, _kino_v1_TranscribeResult__Output>
}
