// @kino/orchestrator (`kino orchestrator`): the Temporal workflows and activities that turn an upload
// into a ready HLS ladder, the encode queue, and the NodeRegistry gRPC server encode nodes register with.
export { orchestratorConfigShape, parseOrchestratorConfig, type OrchestratorConfig } from './config.ts';
export { runOrchestrator, workflowsPath, type RunningOrchestrator } from './worker.ts';
export { createActivities, type Activities, type ActivityDeps } from './activities/index.ts';
export { createNodeActivities } from './activities/node-work.ts';
export { nodeJobId } from './jobs/run-on-node.ts';
export { renditionSpecOf } from './jobs/encode.ts';
export { createIngestActivities, ingestPartBytes } from './activities/ingest.ts';
export { createNodeFarm, type NodeFarm, type NodeLease, type FarmNode } from './node-farm.ts';
export { planLadder, presetRungs, audioBitrateKbps, type RenditionPlan } from './ladder.ts';
export { renderMasterPlaylist, type MasterVariant } from './master-playlist.ts';
export { planChunks } from './chunks.ts';
export { startRegistryServer, type RegistryServer } from './registry/index.ts';
export * from './activity-types.ts';
