// The one ffmpeg wrapper of Kino: every ffmpeg and ffprobe run goes through here.
export {
  reportsTruncatedInput,
  runFfmpeg,
  runFfprobe,
  runProgram,
  FfmpegError,
  FfmpegAbortedError,
  inputArgsFor,
  type FfmpegRunOptions,
} from './command.ts';
export { backgroundNiceness, ProcessPriority, threadNiceness, type Renice } from './priority.ts';
export { ProgressParser, progressFromFields, clampPercent, type FfmpegProgress } from './progress.ts';
export * from './presets.ts';
export {
  probeMedia,
  videoLeadSeconds,
  parseProbeJson,
  isAudioOnly,
  NotAVideoError,
  type AudioTrackInfo,
  type MediaInfo,
  type ProbeJson,
} from './probe.ts';
export {
  fragmentStartsWithKeyframe,
  parseInitSegment,
  readMp4Boxes,
  type InitSegmentInfo,
  type Mp4Box,
} from './mp4.ts';
export * from './hls.ts';
export {
  detectWorkingEncoders,
  encoderDeviceArgs,
  encoderUploadFilter,
  isWorkingQualityFfmpeg,
  parseEncoderList,
  parseFilterList,
  runForDetection,
  testEncodeArgs,
  type ProgramRunner,
} from './encoders.ts';
export { qualityArgs, parseQualityLog, type QualityOptions, type QualityScore } from './quality.ts';
export { rtmpRepublishArgs, srtListenerArgs } from './srt-relay.ts';
