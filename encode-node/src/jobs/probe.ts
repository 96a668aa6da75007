// Probe: ffprobe of the source through its presigned GET (ffprobe reads the URL); nothing is
// written, so there is no job directory and nothing to upload.
import type { ProbeRequest__Output, ProbeResult } from '@kino/proto';
import { probeMedia } from '@kino/ffmpeg';
import { InvalidRequestError } from '../errors.ts';

/** Refuses a probe request before the node takes it on (the call is `refused`, not `failed`). */
export function checkProbeRequest(request: ProbeRequest__Output): void {
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
}

export async function runProbeJob({
  request,
  signal,
}: {
  request: ProbeRequest__Output;
  signal: AbortSignal;
}): Promise<ProbeResult> {
  const info = await probeMedia(request.inputUrl, { signal, live: request.live });
  return {
    durationSeconds: info.durationSeconds,
    width: info.width,
    height: info.height,
    frameRate: info.frameRate,
    frameCount: info.frameCount,
    videoCodec: info.videoCodec,
    pixelFormat: info.pixelFormat,
    dynamicRange: info.dynamicRange,
    hasAudio: info.hasAudio,
    audioCodec: info.audioCodec,
    audioChannels: info.audioChannels,
    audioSampleRate: info.audioSampleRate,
    formatName: info.formatName,
    sizeBytes: info.sizeBytes,
    videoDurationSeconds: info.videoDurationSeconds,
    audioTracks: info.audioTracks,
  };
}
