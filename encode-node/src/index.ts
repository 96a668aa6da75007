// Encode nodes: the gRPC EncodeService over the one ffmpeg wrapper, and registration with the
// control plane. File names, content types, presets and pixel formats are the shared contract's
// (@kino/proto/contract), which the orchestrator plans jobs with.
export {
  startEncodeNode,
  createNodeLogger,
  nodeVersion,
  type EncodeNodeOptions,
  type EncodeNodeHandle,
} from './node.ts';
export { nodeConfigShape, nodeOptionsFromConfig, parseNodeConfig, type NodeConfig } from './config.ts';
export { createEncodeServiceHandlers, type EncodeServiceOptions } from './encode-service.ts';
export { NodeJobs } from './node-jobs.ts';
export { resolveHlsSettings, resolvePixelFormat } from './encode-settings.ts';
export { processWorkDir } from './job-dir.ts';
export * from './errors.ts';
export { speechEngineScript, describeSpeechEngine } from './jobs/transcribe.ts';
