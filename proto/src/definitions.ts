// Loads kino.proto once: the runtime service definitions and client constructors, typed by ./generated.
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync, type Options } from '@grpc/proto-loader';
import type { ProtoGrpcType } from './generated/kino.ts';
import type { EncodeServiceClient as EncodeServiceGrpcClient } from './generated/kino/v1/EncodeService.ts';
import type { NodeRegistryClient as NodeRegistryGrpcClient } from './generated/kino/v1/NodeRegistry.ts';

export const protoPath = fileURLToPath(new URL('../kino.proto', import.meta.url));

/** The loader options; scripts/gen.mjs generates the types with the same ones. */
export const protoLoaderOptions: Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

const kino = (grpc.loadPackageDefinition(loadSync(protoPath, protoLoaderOptions)) as unknown as ProtoGrpcType).kino.v1;

/** gRPC client constructors: `new EncodeServiceClient(address, credentials)`. */
export const EncodeServiceClient = kino.EncodeService;
export const NodeRegistryClient = kino.NodeRegistry;
/** Service definitions for `server.addService(...)`. */
export const encodeServiceDefinition = kino.EncodeService.service;
export const nodeRegistryDefinition = kino.NodeRegistry.service;

/** Metadata key under which callers of EncodeService present the farm token. */
export const tokenMetadataKey = 'x-kino-token';
/** Metadata key naming the node a call to the relay is for (EncodeService through an orchestrator). */
export const nodeMetadataKey = 'x-kino-node';

export type { EncodeServiceGrpcClient, NodeRegistryGrpcClient };

export { grpc };
export const GrpcStatus = grpc.status;
export type GrpcStatus = grpc.status;

/** A failed gRPC call: `code` is a `GrpcStatus`, `details` the server's message. */
export function isServiceError(error: unknown): error is grpc.ServiceError {
  return error instanceof Error && typeof (error as Partial<grpc.ServiceError>).code === 'number' && 'details' in error;
}
