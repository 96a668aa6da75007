// Original file: kino.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeregisterRequest as _kino_v1_DeregisterRequest, DeregisterRequest__Output as _kino_v1_DeregisterRequest__Output } from '../../kino/v1/DeregisterRequest.ts';
import type { DeregisterResponse as _kino_v1_DeregisterResponse, DeregisterResponse__Output as _kino_v1_DeregisterResponse__Output } from '../../kino/v1/DeregisterResponse.ts';
import type { EnrollRequest as _kino_v1_EnrollRequest, EnrollRequest__Output as _kino_v1_EnrollRequest__Output } from '../../kino/v1/EnrollRequest.ts';
import type { EnrollResponse as _kino_v1_EnrollResponse, EnrollResponse__Output as _kino_v1_EnrollResponse__Output } from '../../kino/v1/EnrollResponse.ts';
import type { HeartbeatRequest as _kino_v1_HeartbeatRequest, HeartbeatRequest__Output as _kino_v1_HeartbeatRequest__Output } from '../../kino/v1/HeartbeatRequest.ts';
import type { HeartbeatResponse as _kino_v1_HeartbeatResponse, HeartbeatResponse__Output as _kino_v1_HeartbeatResponse__Output } from '../../kino/v1/HeartbeatResponse.ts';
import type { NodeFrame as _kino_v1_NodeFrame, NodeFrame__Output as _kino_v1_NodeFrame__Output } from '../../kino/v1/NodeFrame.ts';
import type { RegistryFrame as _kino_v1_RegistryFrame, RegistryFrame__Output as _kino_v1_RegistryFrame__Output } from '../../kino/v1/RegistryFrame.ts';
import type { RenewRequest as _kino_v1_RenewRequest, RenewRequest__Output as _kino_v1_RenewRequest__Output } from '../../kino/v1/RenewRequest.ts';
import type { RenewResponse as _kino_v1_RenewResponse, RenewResponse__Output as _kino_v1_RenewResponse__Output } from '../../kino/v1/RenewResponse.ts';

/**
 * Served by the control plane (the orchestrator process). Over TLS (a farm with its certificate
 * authority) an enrolled node presents its certificate; a farm without one, on plaintext, takes the
 * shared farm token in each request (REGISTRY_ACCEPT_NODE_TOKEN).
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
  
  /**
   * A node's new certificate for a new key pair, before its current one ends: called over the node's
   * TLS connection with its current certificate, which is the identity; the old serial stops working
   * as the new one is recorded. A revoked node, or a certificate past its end, is refused.
   */
  Renew(argument: _kino_v1_RenewRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _kino_v1_RenewRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _kino_v1_RenewRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _kino_v1_RenewRequest, callback: grpc.requestCallback<_kino_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  /**
   * A node's new certificate for a new key pair, before its current one ends: called over the node's
   * TLS connection with its current certificate, which is the identity; the old serial stops working
   * as the new one is recorded. A revoked node, or a certificate past its end, is refused.
   */
  renew(argument: _kino_v1_RenewRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _kino_v1_RenewRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_kino_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _kino_v1_RenewRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_kino_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _kino_v1_RenewRequest, callback: grpc.requestCallback<_kino_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Served by the control plane (the orchestrator process). Over TLS (a farm with its certificate
 * authority) an enrolled node presents its certificate; a farm without one, on plaintext, takes the
 * shared farm token in each request (REGISTRY_ACCEPT_NODE_TOKEN).
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
  
  /**
   * A node trades its one-time enrollment token (`kino admin nodes enroll`) for its own certificate,
   * signed by the farm CA (issue 54). The only call the registry answers without a client
   * certificate of the farm; the others take the node's identity from that certificate.
   */
  Enroll: grpc.handleUnaryCall<_kino_v1_EnrollRequest__Output, _kino_v1_EnrollResponse>;
  
  Heartbeat: grpc.handleUnaryCall<_kino_v1_HeartbeatRequest__Output, _kino_v1_HeartbeatResponse>;
  
  /**
   * A node's new certificate for a new key pair, before its current one ends: called over the node's
   * TLS connection with its current certificate, which is the identity; the old serial stops working
   * as the new one is recorded. A revoked node, or a certificate past its end, is refused.
   */
  Renew: grpc.handleUnaryCall<_kino_v1_RenewRequest__Output, _kino_v1_RenewResponse>;
  
}

export interface NodeRegistryDefinition extends grpc.ServiceDefinition {
  Connect: MethodDefinition<_kino_v1_NodeFrame, _kino_v1_RegistryFrame, _kino_v1_NodeFrame__Output, _kino_v1_RegistryFrame__Output>
  Deregister: MethodDefinition<_kino_v1_DeregisterRequest, _kino_v1_DeregisterResponse, _kino_v1_DeregisterRequest__Output, _kino_v1_DeregisterResponse__Output>
  Enroll: MethodDefinition<_kino_v1_EnrollRequest, _kino_v1_EnrollResponse, _kino_v1_EnrollRequest__Output, _kino_v1_EnrollResponse__Output>
  Heartbeat: MethodDefinition<_kino_v1_HeartbeatRequest, _kino_v1_HeartbeatResponse, _kino_v1_HeartbeatRequest__Output, _kino_v1_HeartbeatResponse__Output>
  Renew: MethodDefinition<_kino_v1_RenewRequest, _kino_v1_RenewResponse, _kino_v1_RenewRequest__Output, _kino_v1_RenewResponse__Output>
}
