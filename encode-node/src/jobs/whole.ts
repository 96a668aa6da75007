// Whole: one or more renditions of the whole video from one decode of the source, the runner way:
// ffmpeg reads the source from its presigned GET and encodes to HLS in a job directory with periodic
// progress; segments upload while the next ones encode; then the init segments, then the playlists
// (a playlist in storage means its files are too); the job directory goes whatever happened.
import type { EncodeDone, EncodeRequest__Output, ProbeResult__Output } from '@kino/proto';
import { hlsInitName, hlsPlaylistName } from '@kino/proto/contract';
import type { EncodeJobOptions } from '../encode-options.ts';
import { encodeHlsJob } from '../hls-job.ts';
import { describePlan, planHlsEncode } from '../hls-plan.ts';
import { withJobDir } from '../job-dir.ts';
import { watermarkedPlan } from '../watermark.ts';

export async function runWholeJob(
  options: EncodeJobOptions,
  source: ProbeResult__Output,
  whole: NonNullable<EncodeRequest__Output['whole']>,
): Promise<EncodeDone> {
  const { request, logger } = options;
  const plan = planHlsEncode(
    whole.renditions,
    whole.outputUrls,
    [hlsPlaylistName, hlsInitName],
    source,
    options.qualityFfmpeg,
    options.encoders,
  );
  logger.info(describePlan(plan, source), 'encode starting');
  return withJobDir(options.workDir, request.jobId, 'job', async (jobDir) =>
    encodeHlsJob(options, source, {
      jobDir,
      plan: await watermarkedPlan(plan, request.watermark, jobDir, options.signal),
      outputUrls: whole.outputUrls,
      measureQuality: whole.measureQuality,
      keep: () => true,
      last: plan.renditions.map((r) => r.prefix + hlsPlaylistName),
    }),
  );
}
