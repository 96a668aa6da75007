// Encode nodes: the gRPC EncodeService over the one ffmpeg wrapper, and registration with the
// control plane. The orchestrator imports the pure helpers below to plan jobs the same way a node
// runs them (file names, content types, presets, pixel formats).
export { startEncodeNode, createNodeLogger, nodeVersion, type EncodeNodeOptions, type EncodeNodeHandle } from './node.ts';
export { nodeConfigShape, nodeOptionsFromConfig, type NodeConfig } from './config.ts';
export { NodeJobs, createEncodeServiceHandlers, type EncodeServiceOptions } from './encode-service.ts';
export { resolveHlsSettings, resolvePixelFormat } from './encode-settings.ts';
export * from './errors.ts';
export {
  hlsOutputFileNames,
  contentTypeForHlsFile,
  hlsPlaylistName,
  hlsInitName,
  apiPixelFormats,
  x264PixelFormatFor,
  apiNameOfPixelFormat,
  compressionRatios,
  x264PresetFor,
  apiAudioCodecs,
  audioEncodingFor,
  type ApiPixelFormat,
  type CompressionRatio,
  type ApiAudioCodec,
  type MediaInfo,
} from './ffmpeg/index.ts';
