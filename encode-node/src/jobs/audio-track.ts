// Audio track: only the source's audio, as one MP4 uploaded through its presigned PUT. The audio
// track of a chunked video (its chunks stream-copy their part of it: one audio encode, no seams),
// or a video's `audio.m4a` download (then often a remux: `copy`). Both are this one kind of encode
// for the node; only the orchestrator tells them apart.
import { join } from 'node:path';
import type { EncodeDone, EncodeRequest__Output, ProbeResult__Output } from '@kino/proto';
import { workContentTypes } from '@kino/proto/contract';
import { audioTrackArgs, runFfmpeg } from '@kino/ffmpeg';
import type { EncodeJobOptions } from '../encode-options.ts';
import { resolveAudioSettings } from '../encode-settings.ts';
import { InvalidRequestError } from '../errors.ts';
import { withJobDir } from '../job-dir.ts';
import { uploadFile } from '../upload.ts';

export async function runAudioTrackJob(
  { request, workDir, priority, signal, logger, onProgress }: EncodeJobOptions,
  source: ProbeResult__Output,
  track: NonNullable<EncodeRequest__Output['audioTrack']>,
): Promise<EncodeDone> {
  if (!track.outputUrl) throw new InvalidRequestError('audio_track.output_url is required');
  if (!source.hasAudio) throw new InvalidRequestError('the audio track of a video without audio was asked for');
  const audio = track.copy ? 'copy' : resolveAudioSettings(track, source);
  if (!audio) throw new InvalidRequestError('the audio track of a video without audio (or at 0 kbps) was asked for');
  return withJobDir(workDir, request.jobId, 'audio', async (jobDir) => {
    const output = join(jobDir, 'audio.mp4');
    const { durationSeconds } = source;
    logger.info({ audio }, 'audio track starting');
    await runFfmpeg(audioTrackArgs({ input: request.inputUrl, audio, output, durationSeconds }), {
      durationSeconds,
      signal,
      logger,
      priority,
      onProgress: (progress) =>
        onProgress({ percent: progress.percent, encodedSeconds: progress.outTimeSeconds, speed: progress.speed }),
    });
    const bytes = await uploadFile(output, track.outputUrl, workContentTypes.audioTrack, signal);
    onProgress({ percent: 100, encodedSeconds: durationSeconds, speed: 0 });
    return { bytesWritten: bytes, files: ['audio.mp4'], renditions: [] };
  });
}
