// The orchestrator: Temporal workflows and activities that turn an upload into a ready HLS ladder.
export { orchestratorConfigShape, parseOrchestratorConfig, type OrchestratorConfig } from './config.ts';
export { runOrchestrator, workflowsPath, type RunningOrchestrator } from './worker.ts';
export { createActivities, type Activities, type ActivityDeps } from './activities/index.ts';
export { nodeJobId } from './activities/node-work.ts';
export { createIngestActivities, ingestPartBytes } from './activities/ingest.ts';
export { createNodeFarm, type NodeFarm, type NodeLease, type FarmNode } from './node-farm.ts';
export { planLadder, presetRungs, audioBitrateKbps, type RenditionPlan } from './ladder.ts';
export { renderMasterPlaylist, type MasterVariant } from './master-playlist.ts';
export { signWebhook, webhookSecretKey } from './webhook-signature.ts';
export * from './contracts.ts';
