// The encode farm's registry: the NodeRegistry gRPC server (hosted by the orchestrator process).
// Its tables are the encode-nodes and node-leases repositories.
export {
  startRegistryServer,
  heartbeatIntervalFor,
  type RegistryServer,
  type RegistryServerOptions,
} from './server.ts';
/** A promise-shaped client of one encode node (probe, encode with progress, thumbnail), token attached. */
export { createEncodeClient, type EncodeClient } from '@kino/proto';
