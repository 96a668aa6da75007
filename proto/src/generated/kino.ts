import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AudioTrackEncode as _kino_v1_AudioTrackEncode, AudioTrackEncode__Output as _kino_v1_AudioTrackEncode__Output } from './kino/v1/AudioTrackEncode.ts';
import type { ChunkEncode as _kino_v1_ChunkEncode, ChunkEncode__Output as _kino_v1_ChunkEncode__Output } from './kino/v1/ChunkEncode.ts';
import type { DeregisterRequest as _kino_v1_DeregisterRequest, DeregisterRequest__Output as _kino_v1_DeregisterRequest__Output } from './kino/v1/DeregisterRequest.ts';
import type { DeregisterResponse as _kino_v1_DeregisterResponse, DeregisterResponse__Output as _kino_v1_DeregisterResponse__Output } from './kino/v1/DeregisterResponse.ts';
import type { EncodeDone as _kino_v1_EncodeDone, EncodeDone__Output as _kino_v1_EncodeDone__Output } from './kino/v1/EncodeDone.ts';
import type { EncodeEvent as _kino_v1_EncodeEvent, EncodeEvent__Output as _kino_v1_EncodeEvent__Output } from './kino/v1/EncodeEvent.ts';
import type { EncodeProgress as _kino_v1_EncodeProgress, EncodeProgress__Output as _kino_v1_EncodeProgress__Output } from './kino/v1/EncodeProgress.ts';
import type { EncodeRequest as _kino_v1_EncodeRequest, EncodeRequest__Output as _kino_v1_EncodeRequest__Output } from './kino/v1/EncodeRequest.ts';
import type { EncodeServiceClient as _kino_v1_EncodeServiceClient, EncodeServiceDefinition as _kino_v1_EncodeServiceDefinition } from './kino/v1/EncodeService.ts';
import type { EnrollRequest as _kino_v1_EnrollRequest, EnrollRequest__Output as _kino_v1_EnrollRequest__Output } from './kino/v1/EnrollRequest.ts';
import type { EnrollResponse as _kino_v1_EnrollResponse, EnrollResponse__Output as _kino_v1_EnrollResponse__Output } from './kino/v1/EnrollResponse.ts';
import type { HeartbeatRequest as _kino_v1_HeartbeatRequest, HeartbeatRequest__Output as _kino_v1_HeartbeatRequest__Output } from './kino/v1/HeartbeatRequest.ts';
import type { HeartbeatResponse as _kino_v1_HeartbeatResponse, HeartbeatResponse__Output as _kino_v1_HeartbeatResponse__Output } from './kino/v1/HeartbeatResponse.ts';
import type { JobFailure as _kino_v1_JobFailure, JobFailure__Output as _kino_v1_JobFailure__Output } from './kino/v1/JobFailure.ts';
import type { LiveEncode as _kino_v1_LiveEncode, LiveEncode__Output as _kino_v1_LiveEncode__Output } from './kino/v1/LiveEncode.ts';
import type { LiveFile as _kino_v1_LiveFile, LiveFile__Output as _kino_v1_LiveFile__Output } from './kino/v1/LiveFile.ts';
import type { LiveRenditionStarted as _kino_v1_LiveRenditionStarted, LiveRenditionStarted__Output as _kino_v1_LiveRenditionStarted__Output } from './kino/v1/LiveRenditionStarted.ts';
import type { NodeFrame as _kino_v1_NodeFrame, NodeFrame__Output as _kino_v1_NodeFrame__Output } from './kino/v1/NodeFrame.ts';
import type { NodeRegistryClient as _kino_v1_NodeRegistryClient, NodeRegistryDefinition as _kino_v1_NodeRegistryDefinition } from './kino/v1/NodeRegistry.ts';
import type { ProbeAudioTrack as _kino_v1_ProbeAudioTrack, ProbeAudioTrack__Output as _kino_v1_ProbeAudioTrack__Output } from './kino/v1/ProbeAudioTrack.ts';
import type { ProbeRequest as _kino_v1_ProbeRequest, ProbeRequest__Output as _kino_v1_ProbeRequest__Output } from './kino/v1/ProbeRequest.ts';
import type { ProbeResult as _kino_v1_ProbeResult, ProbeResult__Output as _kino_v1_ProbeResult__Output } from './kino/v1/ProbeResult.ts';
import type { RaisePriorityRequest as _kino_v1_RaisePriorityRequest, RaisePriorityRequest__Output as _kino_v1_RaisePriorityRequest__Output } from './kino/v1/RaisePriorityRequest.ts';
import type { RaisePriorityResponse as _kino_v1_RaisePriorityResponse, RaisePriorityResponse__Output as _kino_v1_RaisePriorityResponse__Output } from './kino/v1/RaisePriorityResponse.ts';
import type { RegisterRequest as _kino_v1_RegisterRequest, RegisterRequest__Output as _kino_v1_RegisterRequest__Output } from './kino/v1/RegisterRequest.ts';
import type { RegisterResponse as _kino_v1_RegisterResponse, RegisterResponse__Output as _kino_v1_RegisterResponse__Output } from './kino/v1/RegisterResponse.ts';
import type { RegistryFrame as _kino_v1_RegistryFrame, RegistryFrame__Output as _kino_v1_RegistryFrame__Output } from './kino/v1/RegistryFrame.ts';
import type { RenditionDone as _kino_v1_RenditionDone, RenditionDone__Output as _kino_v1_RenditionDone__Output } from './kino/v1/RenditionDone.ts';
import type { RenditionSpec as _kino_v1_RenditionSpec, RenditionSpec__Output as _kino_v1_RenditionSpec__Output } from './kino/v1/RenditionSpec.ts';
import type { RenewRequest as _kino_v1_RenewRequest, RenewRequest__Output as _kino_v1_RenewRequest__Output } from './kino/v1/RenewRequest.ts';
import type { RenewResponse as _kino_v1_RenewResponse, RenewResponse__Output as _kino_v1_RenewResponse__Output } from './kino/v1/RenewResponse.ts';
import type { SegmentDone as _kino_v1_SegmentDone, SegmentDone__Output as _kino_v1_SegmentDone__Output } from './kino/v1/SegmentDone.ts';
import type { StoryboardRequest as _kino_v1_StoryboardRequest, StoryboardRequest__Output as _kino_v1_StoryboardRequest__Output } from './kino/v1/StoryboardRequest.ts';
import type { StoryboardResult as _kino_v1_StoryboardResult, StoryboardResult__Output as _kino_v1_StoryboardResult__Output } from './kino/v1/StoryboardResult.ts';
import type { ThumbnailRequest as _kino_v1_ThumbnailRequest, ThumbnailRequest__Output as _kino_v1_ThumbnailRequest__Output } from './kino/v1/ThumbnailRequest.ts';
import type { ThumbnailResult as _kino_v1_ThumbnailResult, ThumbnailResult__Output as _kino_v1_ThumbnailResult__Output } from './kino/v1/ThumbnailResult.ts';
import type { TranscribeRequest as _kino_v1_TranscribeRequest, TranscribeRequest__Output as _kino_v1_TranscribeRequest__Output } from './kino/v1/TranscribeRequest.ts';
import type { TranscribeResult as _kino_v1_TranscribeResult, TranscribeResult__Output as _kino_v1_TranscribeResult__Output } from './kino/v1/TranscribeResult.ts';
import type { Watermark as _kino_v1_Watermark, Watermark__Output as _kino_v1_Watermark__Output } from './kino/v1/Watermark.ts';
import type { WholeEncode as _kino_v1_WholeEncode, WholeEncode__Output as _kino_v1_WholeEncode__Output } from './kino/v1/WholeEncode.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  kino: {
    v1: {
      AudioTrackEncode: MessageTypeDefinition<_kino_v1_AudioTrackEncode, _kino_v1_AudioTrackEncode__Output>
      ChunkEncode: MessageTypeDefinition<_kino_v1_ChunkEncode, _kino_v1_ChunkEncode__Output>
      DeregisterRequest: MessageTypeDefinition<_kino_v1_DeregisterRequest, _kino_v1_DeregisterRequest__Output>
      DeregisterResponse: MessageTypeDefinition<_kino_v1_DeregisterResponse, _kino_v1_DeregisterResponse__Output>
      EncodeDone: MessageTypeDefinition<_kino_v1_EncodeDone, _kino_v1_EncodeDone__Output>
      EncodeEvent: MessageTypeDefinition<_kino_v1_EncodeEvent, _kino_v1_EncodeEvent__Output>
      EncodeProgress: MessageTypeDefinition<_kino_v1_EncodeProgress, _kino_v1_EncodeProgress__Output>
      EncodeRequest: MessageTypeDefinition<_kino_v1_EncodeRequest, _kino_v1_EncodeRequest__Output>
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
      EncodeService: SubtypeConstructor<typeof grpc.Client, _kino_v1_EncodeServiceClient> & { service: _kino_v1_EncodeServiceDefinition }
      EnrollRequest: MessageTypeDefinition<_kino_v1_EnrollRequest, _kino_v1_EnrollRequest__Output>
      EnrollResponse: MessageTypeDefinition<_kino_v1_EnrollResponse, _kino_v1_EnrollResponse__Output>
      FailureReason: EnumTypeDefinition
      HeartbeatRequest: MessageTypeDefinition<_kino_v1_HeartbeatRequest, _kino_v1_HeartbeatRequest__Output>
      HeartbeatResponse: MessageTypeDefinition<_kino_v1_HeartbeatResponse, _kino_v1_HeartbeatResponse__Output>
      JobFailure: MessageTypeDefinition<_kino_v1_JobFailure, _kino_v1_JobFailure__Output>
      LiveEncode: MessageTypeDefinition<_kino_v1_LiveEncode, _kino_v1_LiveEncode__Output>
      LiveFile: MessageTypeDefinition<_kino_v1_LiveFile, _kino_v1_LiveFile__Output>
      LiveRenditionStarted: MessageTypeDefinition<_kino_v1_LiveRenditionStarted, _kino_v1_LiveRenditionStarted__Output>
      NodeFrame: MessageTypeDefinition<_kino_v1_NodeFrame, _kino_v1_NodeFrame__Output>
      /**
       * Served by the control plane (the orchestrator process). Over TLS (a farm with its certificate
       * authority) an enrolled node presents its certificate; a farm without one, on plaintext, takes the
       * shared farm token in each request (REGISTRY_ACCEPT_NODE_TOKEN).
       */
      NodeRegistry: SubtypeConstructor<typeof grpc.Client, _kino_v1_NodeRegistryClient> & { service: _kino_v1_NodeRegistryDefinition }
      ProbeAudioTrack: MessageTypeDefinition<_kino_v1_ProbeAudioTrack, _kino_v1_ProbeAudioTrack__Output>
      ProbeRequest: MessageTypeDefinition<_kino_v1_ProbeRequest, _kino_v1_ProbeRequest__Output>
      ProbeResult: MessageTypeDefinition<_kino_v1_ProbeResult, _kino_v1_ProbeResult__Output>
      RaisePriorityRequest: MessageTypeDefinition<_kino_v1_RaisePriorityRequest, _kino_v1_RaisePriorityRequest__Output>
      RaisePriorityResponse: MessageTypeDefinition<_kino_v1_RaisePriorityResponse, _kino_v1_RaisePriorityResponse__Output>
      RegisterRequest: MessageTypeDefinition<_kino_v1_RegisterRequest, _kino_v1_RegisterRequest__Output>
      RegisterResponse: MessageTypeDefinition<_kino_v1_RegisterResponse, _kino_v1_RegisterResponse__Output>
      RegistryFrame: MessageTypeDefinition<_kino_v1_RegistryFrame, _kino_v1_RegistryFrame__Output>
      RenditionDone: MessageTypeDefinition<_kino_v1_RenditionDone, _kino_v1_RenditionDone__Output>
      RenditionSpec: MessageTypeDefinition<_kino_v1_RenditionSpec, _kino_v1_RenditionSpec__Output>
      RenewRequest: MessageTypeDefinition<_kino_v1_RenewRequest, _kino_v1_RenewRequest__Output>
      RenewResponse: MessageTypeDefinition<_kino_v1_RenewResponse, _kino_v1_RenewResponse__Output>
      SegmentDone: MessageTypeDefinition<_kino_v1_SegmentDone, _kino_v1_SegmentDone__Output>
      StoryboardRequest: MessageTypeDefinition<_kino_v1_StoryboardRequest, _kino_v1_StoryboardRequest__Output>
      StoryboardResult: MessageTypeDefinition<_kino_v1_StoryboardResult, _kino_v1_StoryboardResult__Output>
      ThumbnailRequest: MessageTypeDefinition<_kino_v1_ThumbnailRequest, _kino_v1_ThumbnailRequest__Output>
      ThumbnailResult: MessageTypeDefinition<_kino_v1_ThumbnailResult, _kino_v1_ThumbnailResult__Output>
      TranscribeRequest: MessageTypeDefinition<_kino_v1_TranscribeRequest, _kino_v1_TranscribeRequest__Output>
      TranscribeResult: MessageTypeDefinition<_kino_v1_TranscribeResult, _kino_v1_TranscribeResult__Output>
      Watermark: MessageTypeDefinition<_kino_v1_Watermark, _kino_v1_Watermark__Output>
      WholeEncode: MessageTypeDefinition<_kino_v1_WholeEncode, _kino_v1_WholeEncode__Output>
    }
  }
}

