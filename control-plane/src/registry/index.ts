// The encode farm's registry: the NodeRegistry gRPC server (hosted by the orchestrator process),
// and the functions the orchestrator uses to pick a node, take a slot and give it back.
export { startRegistryServer, heartbeatIntervalFor, type RegistryServer, type RegistryServerOptions } from './server.ts';
export {
  acquireNodeSlot,
  releaseNodeSlot,
  expireDeadNodes,
  findLiveNode,
  listLiveNodes,
  listEncodeNodes,
  registerNode,
  recordHeartbeat,
  deregisterNode,
  type AcquireOptions,
  type SelectionOptions,
  type NodeSlotLease,
  type LiveNode,
  type NodeRegistration,
  type NodeHeartbeat,
} from './nodes.ts';
/** A promise-shaped client of one encode node (probe, encode with progress, thumbnail), token attached. */
export { createEncodeClient, type EncodeClient } from '@kino/proto';
