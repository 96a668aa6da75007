// Original file: kino.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeregisterRequest as _kino_v1_DeregisterRequest, DeregisterRequest__Output as _kino_v1_DeregisterRequest__Output } from '../../kino/v1/DeregisterRequest.ts';
import type { DeregisterResponse as _kino_v1_DeregisterResponse, DeregisterResponse__Output as _kino_v1_DeregisterResponse__Output } from '../../kino/v1/DeregisterResponse.ts';
import type { HeartbeatRequest as _kino_v1_HeartbeatRequest, HeartbeatRequest__Output as _kino_v1_HeartbeatRequest__Output } from '../../kino/v1/HeartbeatRequest.ts';
import type { HeartbeatResponse as _kino_v1_HeartbeatResponse, HeartbeatResponse__Output as _kino_v1_HeartbeatResponse__Output } from '../../kino/v1/HeartbeatResponse.ts';
import type { NodeFrame as _kino_v1_NodeFrame, NodeFrame__Output as _kino_v1_NodeFrame__Output } from '../../kino/v1/NodeFrame.ts';
import type { RegistryFrame as _kino_v1_RegistryFrame, RegistryFrame__Output as _kino_v1_RegistryFrame__Output } from '../../kino/v1/RegistryFrame.ts';

/**
 * Served by the control plane (the orchestrator process). Nodes present the farm token.
 */
export interface NodeRegistryClient extends grpc.Client {
  /**
   * A node's one connection to the farm (docs/decisions/node-connect.md): it dials out, says hello
   * (what registering says) and keeps the stream open. The orchestrator answers with a welcome; from
   * then on both directions carry the bytes of an HTTP/2 connection on which the node serves its
   * EncodeService, so jobs, cancellations and priority raises reach a node that has no inbound route.
   * The stream ending is the node lost: every call in it fails and its work moves on.
   */
  Connect(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_kino_v1_NodeFrame, _kino_v1_RegistryFrame__Output>;
  Connect(options?: grpc.CallOptions): grpc.ClientDuplexStream<_kino_v1_NodeFrame, _kino_v1_RegistryFrame__Output>;
  /**
   * A node's one connection to the farm (docs/decisions/node-connect.md): it dials out, says hello
   * (what registering says) and keeps the stream open. The orchestrator answers with a welcome; from
   * then on both directions carry the bytes of an HTTP/2 connection on which the node serves its
   * EncodeService, so jobs, cancellations and priority raises reach a node that has no inbound route.
   * The stream ending is the node lost: every call in it fails and its work moves on.
   */
  connect(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_kino_v1_NodeFrame, _kino_v1_RegistryFrame__Output>;
  connect(options?: grpc.CallOptions): grpc.ClientDuplexStream<_kino_v1_NodeFrame, _kino_v1_RegistryFrame__Output>;
  
  Deregister(argument: _kino_v1_DeregisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _kino_v1_DeregisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _kino_v1_DeregisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _kino_v1_DeregisterRequest, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _kino_v1_DeregisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _kino_v1_DeregisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _kino_v1_DeregisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _kino_v1_DeregisterRequest, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  
  Heartbeat(argument: _kino_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _kino_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _kino_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _kino_v1_HeartbeatRequest, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _kino_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _kino_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _kino_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _kino_v1_HeartbeatRequest, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Served by the control plane (the orchestrator process). Nodes present the farm token.
 */
export interface NodeRegistryHandlers extends grpc.UntypedServiceImplementation {
  /**
   * A node's one connection to the farm (docs/decisions/node-connect.md): it dials out, says hello
   * (what registering says) and keeps the stream open. The orchestrator answers with a welcome; from
   * then on both directions carry the bytes of an HTTP/2 connection on which the node serves its
   * EncodeService, so jobs, cancellations and priority raises reach a node that has no inbound route.
   * The stream ending is the node lost: every call in it fails and its work moves on.
   */
  Connect: grpc.handleBidiStreamingCall<_kino_v1_NodeFrame__Output, _kino_v1_RegistryFrame>;
  
  Deregister: grpc.handleUnaryCall<_kino_v1_DeregisterRequest__Output, _kino_v1_DeregisterResponse>;
  
  Heartbeat: grpc.handleUnaryCall<_kino_v1_HeartbeatRequest__Output, _kino_v1_HeartbeatResponse>;
  
}

export interface NodeRegistryDefinition extends grpc.ServiceDefinition {
  Connect: MethodDefinition<_kino_v1_NodeFrame, _kino_v1_RegistryFrame, _kino_v1_NodeFrame__Output, _kino_v1_RegistryFrame__Output>
  Deregister: MethodDefinition<_kino_v1_DeregisterRequest, _kino_v1_DeregisterResponse, _kino_v1_DeregisterRequest__Output, _kino_v1_DeregisterResponse__Output>
  Heartbeat: MethodDefinition<_kino_v1_HeartbeatRequest, _kino_v1_HeartbeatResponse, _kino_v1_HeartbeatRequest__Output, _kino_v1_HeartbeatResponse__Output>
}
