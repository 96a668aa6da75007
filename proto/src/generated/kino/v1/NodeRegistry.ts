// Original file: kino.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeregisterRequest as _kino_v1_DeregisterRequest, DeregisterRequest__Output as _kino_v1_DeregisterRequest__Output } from '../../kino/v1/DeregisterRequest.ts';
import type { DeregisterResponse as _kino_v1_DeregisterResponse, DeregisterResponse__Output as _kino_v1_DeregisterResponse__Output } from '../../kino/v1/DeregisterResponse.ts';
import type { EnrollRequest as _kino_v1_EnrollRequest, EnrollRequest__Output as _kino_v1_EnrollRequest__Output } from '../../kino/v1/EnrollRequest.ts';
import type { EnrollResponse as _kino_v1_EnrollResponse, EnrollResponse__Output as _kino_v1_EnrollResponse__Output } from '../../kino/v1/EnrollResponse.ts';
import type { HeartbeatRequest as _kino_v1_HeartbeatRequest, HeartbeatRequest__Output as _kino_v1_HeartbeatRequest__Output } from '../../kino/v1/HeartbeatRequest.ts';
import type { HeartbeatResponse as _kino_v1_HeartbeatResponse, HeartbeatResponse__Output as _kino_v1_HeartbeatResponse__Output } from '../../kino/v1/HeartbeatResponse.ts';
import type { RegisterRequest as _kino_v1_RegisterRequest, RegisterRequest__Output as _kino_v1_RegisterRequest__Output } from '../../kino/v1/RegisterRequest.ts';
import type { RegisterResponse as _kino_v1_RegisterResponse, RegisterResponse__Output as _kino_v1_RegisterResponse__Output } from '../../kino/v1/RegisterResponse.ts';

/**
 * Served by the control plane (the orchestrator process). Over TLS (a farm with its certificate
 * authority) an enrolled node presents its certificate; a farm without one, on plaintext, takes the
 * shared farm token in each request (REGISTRY_ACCEPT_NODE_TOKEN).
 */
export interface NodeRegistryClient extends grpc.Client {
  Deregister(argument: _kino_v1_DeregisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _kino_v1_DeregisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _kino_v1_DeregisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _kino_v1_DeregisterRequest, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _kino_v1_DeregisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _kino_v1_DeregisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _kino_v1_DeregisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _kino_v1_DeregisterRequest, callback: grpc.requestCallback<_kino_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * A node trades its one-time enrollment token (`kino admin nodes enroll`) for its own certificate,
   * signed by the farm CA (issue 54). The only call the registry answers without a client
   * certificate of the farm; the others take the node's identity from that certificate.
   */
  Enroll(argument: _kino_v1_EnrollRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_EnrollResponse__Output>): grpc.ClientUnaryCall;
  Enroll(argument: _kino_v1_EnrollRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_EnrollResponse__Output>): grpc.ClientUnaryCall;
  Enroll(argument: _kino_v1_EnrollRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_EnrollResponse__Output>): grpc.ClientUnaryCall;
  Enroll(argument: _kino_v1_EnrollRequest, callback: grpc.requestCallback<_kino_v1_EnrollResponse__Output>): grpc.ClientUnaryCall;
  /**
   * A node trades its one-time enrollment token (`kino admin nodes enroll`) for its own certificate,
   * signed by the farm CA (issue 54). The only call the registry answers without a client
   * certificate of the farm; the others take the node's identity from that certificate.
   */
  enroll(argument: _kino_v1_EnrollRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_EnrollResponse__Output>): grpc.ClientUnaryCall;
  enroll(argument: _kino_v1_EnrollRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_EnrollResponse__Output>): grpc.ClientUnaryCall;
  enroll(argument: _kino_v1_EnrollRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_EnrollResponse__Output>): grpc.ClientUnaryCall;
  enroll(argument: _kino_v1_EnrollRequest, callback: grpc.requestCallback<_kino_v1_EnrollResponse__Output>): grpc.ClientUnaryCall;
  
  Heartbeat(argument: _kino_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _kino_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _kino_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _kino_v1_HeartbeatRequest, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _kino_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _kino_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _kino_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _kino_v1_HeartbeatRequest, callback: grpc.requestCallback<_kino_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  
  Register(argument: _kino_v1_RegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _kino_v1_RegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _kino_v1_RegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _kino_v1_RegisterRequest, callback: grpc.requestCallback<_kino_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _kino_v1_RegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _kino_v1_RegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _kino_v1_RegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _kino_v1_RegisterRequest, callback: grpc.requestCallback<_kino_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Served by the control plane (the orchestrator process). Over TLS (a farm with its certificate
 * authority) an enrolled node presents its certificate; a farm without one, on plaintext, takes the
 * shared farm token in each request (REGISTRY_ACCEPT_NODE_TOKEN).
 */
export interface NodeRegistryHandlers extends grpc.UntypedServiceImplementation {
  Deregister: grpc.handleUnaryCall<_kino_v1_DeregisterRequest__Output, _kino_v1_DeregisterResponse>;
  
  /**
   * A node trades its one-time enrollment token (`kino admin nodes enroll`) for its own certificate,
   * signed by the farm CA (issue 54). The only call the registry answers without a client
   * certificate of the farm; the others take the node's identity from that certificate.
   */
  Enroll: grpc.handleUnaryCall<_kino_v1_EnrollRequest__Output, _kino_v1_EnrollResponse>;
  
  Heartbeat: grpc.handleUnaryCall<_kino_v1_HeartbeatRequest__Output, _kino_v1_HeartbeatResponse>;
  
  Register: grpc.handleUnaryCall<_kino_v1_RegisterRequest__Output, _kino_v1_RegisterResponse>;
  
}

export interface NodeRegistryDefinition extends grpc.ServiceDefinition {
  Deregister: MethodDefinition<_kino_v1_DeregisterRequest, _kino_v1_DeregisterResponse, _kino_v1_DeregisterRequest__Output, _kino_v1_DeregisterResponse__Output>
  Enroll: MethodDefinition<_kino_v1_EnrollRequest, _kino_v1_EnrollResponse, _kino_v1_EnrollRequest__Output, _kino_v1_EnrollResponse__Output>
  Heartbeat: MethodDefinition<_kino_v1_HeartbeatRequest, _kino_v1_HeartbeatResponse, _kino_v1_HeartbeatRequest__Output, _kino_v1_HeartbeatResponse__Output>
  Register: MethodDefinition<_kino_v1_RegisterRequest, _kino_v1_RegisterResponse, _kino_v1_RegisterRequest__Output, _kino_v1_RegisterResponse__Output>
}
