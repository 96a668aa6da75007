// The wire contract of the farm (kino.proto), loaded at runtime with @grpc/proto-loader, and typed by
// the generated files in ./generated (regenerate with `npm run gen -w proto`).
// Field names are camelCase, 64-bit integers are JS numbers, enums are strings, unset fields carry
// their defaults, and a oneof has a virtual field naming the member that is set (`event`).
export {
  protoPath,
  protoLoaderOptions,
  EncodeServiceClient,
  NodeRegistryClient,
  encodeServiceDefinition,
  nodeRegistryDefinition,
  tokenMetadataKey,
  nodeMetadataKey,
  grpc,
  GrpcStatus,
  isServiceError,
} from './definitions.ts';
export type { EncodeServiceGrpcClient, NodeRegistryGrpcClient } from './definitions.ts';
export type { EncodeServiceHandlers, EncodeServiceDefinition } from './generated/kino/v1/EncodeService.ts';
export type { NodeRegistryHandlers, NodeRegistryDefinition } from './generated/kino/v1/NodeRegistry.ts';
export type { ProbeRequest, ProbeRequest__Output } from './generated/kino/v1/ProbeRequest.ts';
export type { ProbeResult, ProbeResult__Output } from './generated/kino/v1/ProbeResult.ts';
export type { RenditionSpec, RenditionSpec__Output } from './generated/kino/v1/RenditionSpec.ts';
export type { Watermark, Watermark__Output } from './generated/kino/v1/Watermark.ts';
export type { EncodeRequest, EncodeRequest__Output } from './generated/kino/v1/EncodeRequest.ts';
export type { EncodeEvent, EncodeEvent__Output } from './generated/kino/v1/EncodeEvent.ts';
export type { EncodeProgress, EncodeProgress__Output } from './generated/kino/v1/EncodeProgress.ts';
export type { EncodeDone, EncodeDone__Output } from './generated/kino/v1/EncodeDone.ts';
export type { RenditionDone, RenditionDone__Output } from './generated/kino/v1/RenditionDone.ts';
export type { WholeEncode, WholeEncode__Output } from './generated/kino/v1/WholeEncode.ts';
export type { LiveEncode, LiveEncode__Output } from './generated/kino/v1/LiveEncode.ts';
export type { LiveFile, LiveFile__Output } from './generated/kino/v1/LiveFile.ts';
export type { LiveRenditionStarted, LiveRenditionStarted__Output } from './generated/kino/v1/LiveRenditionStarted.ts';
export type { ChunkEncode, ChunkEncode__Output } from './generated/kino/v1/ChunkEncode.ts';
export type { AudioTrackEncode, AudioTrackEncode__Output } from './generated/kino/v1/AudioTrackEncode.ts';
export type { SegmentDone, SegmentDone__Output } from './generated/kino/v1/SegmentDone.ts';
export type { ThumbnailRequest, ThumbnailRequest__Output } from './generated/kino/v1/ThumbnailRequest.ts';
export type { ThumbnailResult, ThumbnailResult__Output } from './generated/kino/v1/ThumbnailResult.ts';
export type { StoryboardRequest, StoryboardRequest__Output } from './generated/kino/v1/StoryboardRequest.ts';
export type { StoryboardResult, StoryboardResult__Output } from './generated/kino/v1/StoryboardResult.ts';
export type { TranscribeRequest, TranscribeRequest__Output } from './generated/kino/v1/TranscribeRequest.ts';
export type { TranscribeResult, TranscribeResult__Output } from './generated/kino/v1/TranscribeResult.ts';
export type { RaisePriorityRequest, RaisePriorityRequest__Output } from './generated/kino/v1/RaisePriorityRequest.ts';
export type {
  RaisePriorityResponse,
  RaisePriorityResponse__Output,
} from './generated/kino/v1/RaisePriorityResponse.ts';
export type { RegisterRequest, RegisterRequest__Output } from './generated/kino/v1/RegisterRequest.ts';
export type { RegisterResponse, RegisterResponse__Output } from './generated/kino/v1/RegisterResponse.ts';
export type { HeartbeatRequest, HeartbeatRequest__Output } from './generated/kino/v1/HeartbeatRequest.ts';
export type { HeartbeatResponse, HeartbeatResponse__Output } from './generated/kino/v1/HeartbeatResponse.ts';
export type { DeregisterRequest, DeregisterRequest__Output } from './generated/kino/v1/DeregisterRequest.ts';
export type { DeregisterResponse, DeregisterResponse__Output } from './generated/kino/v1/DeregisterResponse.ts';
export type { NodeFrame, NodeFrame__Output } from './generated/kino/v1/NodeFrame.ts';
export type { RegistryFrame, RegistryFrame__Output } from './generated/kino/v1/RegistryFrame.ts';
export { tunnelOver, type FrameStream } from './tunnel.ts';
export type { EnrollRequest, EnrollRequest__Output } from './generated/kino/v1/EnrollRequest.ts';
export type { EnrollResponse, EnrollResponse__Output } from './generated/kino/v1/EnrollResponse.ts';
export type { RenewRequest, RenewRequest__Output } from './generated/kino/v1/RenewRequest.ts';
export type { RenewResponse, RenewResponse__Output } from './generated/kino/v1/RenewResponse.ts';
export {
  nodeChannelCredentials,
  enrollingChannelCredentials,
  registryServerCredentials,
  verifiedPeerOf,
  fetchPinnedCaCertificate,
  orchestratorCommonName,
  type NodeCredential,
  type RegistryServerIdentity,
} from './farm-tls/credentials.ts';
export { redactUrls } from './redact.ts';
export {
  jobFailureMetadataKey,
  jobFailureStatus,
  grpcStatusOf,
  jobFailureOf,
  NodeJobFailure,
  type FailureReason,
} from './failures.ts';
export type { JobFailure, JobFailure__Output } from './generated/kino/v1/JobFailure.ts';
export {
  createEncodeClient,
  createRegistryClient,
  EncodeStreamEndedError,
  type EncodeClient,
  type RegistryClient,
  type NodeConnection,
  type CallOptions,
  type EncodeCallOptions,
  type FarmAuth,
} from './clients.ts';
