// What every encode job (jobs/whole.ts, jobs/chunk.ts, jobs/audio-track.ts) is given, and the
// source probe each one is made from.
import type { Logger } from 'pino';
import type { EncodeRequest__Output, LiveFile, LiveRenditionStarted, ProbeResult__Output } from '@kino/proto';
import { isAudioOnly, type ProcessPriority } from '@kino/ffmpeg';
import { InvalidRequestError } from './errors.ts';

export interface EncodeJobProgress {
  percent: number;
  encodedSeconds: number;
  speed: number;
}

/** What a live encode sends back besides progress (EncodeEvent's `file` and `rendition_started`). */
export type LiveEvent = { file: LiveFile } | { renditionStarted: LiveRenditionStarted };

export interface EncodeJobOptions {
  request: EncodeRequest__Output;
  /** Parent of the job's temporary directory. */
  workDir: string;
  /** ffmpeg encoder threads; 0: automatic. */
  threads: number;
  /** The quality ffmpeg (libvmaf, SVT-AV1 2+): AV1 encodes and quality scores run on it; absent: neither. */
  qualityFfmpeg?: string;
  /** The node's working encoders (capabilities.ts): hardware ones serve renditions allowed them. */
  encoders?: readonly string[];
  /**
   * The nice value every ffmpeg of the job runs at (NodeJobs.startEncode: 0 when someone waits for
   * it, `backgroundNiceness` otherwise); raised while the job runs when a viewer starts waiting.
   */
  priority: ProcessPriority;
  signal: AbortSignal;
  logger: Logger;
  onProgress: (progress: EncodeJobProgress) => void;
  /** Sends a live encode's event on the call's stream; resolves once the stream takes more (its flow control). */
  sendLive?: (event: LiveEvent) => Promise<void>;
}

/** The source as the orchestrator probed it: the node does not probe again, but refuses a probe that says nothing. */
export function encodeSourceOf(request: EncodeRequest__Output): ProbeResult__Output {
  const { source } = request;
  const picture = source && source.frameRate > 0 && source.width > 0 && source.height > 0;
  // An audio-only source (no picture, sound) is one too: its one rendition is audio alone.
  if (!source || !(source.durationSeconds > 0 && source.videoDurationSeconds > 0 && (picture || isAudioOnly(source)))) {
    throw new InvalidRequestError('source (the probe of input_url) is missing or describes no video or audio');
  }
  return source;
}
