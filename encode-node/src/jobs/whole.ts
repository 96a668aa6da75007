// Whole: one or more renditions of the whole video from one decode of the source, the runner way:
// ffmpeg reads the source from its presigned GET and encodes to HLS in a job directory with periodic
// progress; segments upload while the next ones encode; then the init segments, then the playlists
// (a playlist in storage means its files are too); the job directory goes whatever happened.
import { join } from 'node:path';
import type { EncodeDone, EncodeRequest__Output, ProbeResult__Output } from '@kino/proto';
import { hlsInitName, hlsPlaylistName } from '@kino/proto/contract';
import type { EncodeJobOptions } from '../encode-options.ts';
import { checkRenditions } from '../hls-checks.ts';
import { encodeHls } from '../hls-encode.ts';
import { describePlan, planHlsEncode } from '../hls-plan.ts';
import { HlsUploads } from '../hls-uploads.ts';
import { withJobDir } from '../job-dir.ts';
import { notScored, scoreRenditions } from '../quality-score.ts';
import { measureRenditions } from '../rendition-done.ts';

export async function runWholeJob(
  options: EncodeJobOptions,
  source: ProbeResult__Output,
  whole: NonNullable<EncodeRequest__Output['whole']>,
): Promise<EncodeDone> {
  const { request, signal, logger, onProgress } = options;
  const plan = planHlsEncode(
    whole.renditions,
    whole.outputUrls,
    [hlsPlaylistName, hlsInitName],
    source,
    options.qualityFfmpeg,
  );
  logger.info(describePlan(plan, source), 'encode starting');
  return withJobDir(options.workDir, request.jobId, 'job', async (jobDir) => {
    const uploads = new HlsUploads(join(jobDir, 'hls'), whole.outputUrls, signal);
    try {
      const { last, errorOutput } = await encodeHls(options, source, plan, { jobDir, uploads });
      const coverage = { expectedSeconds: source.videoDurationSeconds, startSeconds: 0, source, errorOutput };
      const encoded = await checkRenditions(plan.renditions, uploads, coverage, () => true, logger);
      const files = encoded.flatMap((e) => e.files);
      await uploads.uploadRest(
        files,
        plan.renditions.map((r) => r.prefix + hlsPlaylistName),
      );
      // Scored on their first segment, all renditions at once (only videos that asked).
      const scores = whole.measureQuality
        ? await scoreRenditions(options, source, encoded, { outDir: uploads.outDir, jobDir, startSeconds: 0 })
        : notScored();
      const renditions = await measureRenditions(uploads.outDir, encoded, scores, last);
      onProgress({ percent: 100, encodedSeconds: renditions[0]!.durationSeconds, speed: last?.speed ?? 0 });
      return { bytesWritten: uploads.bytes, files, renditions };
    } finally {
      await uploads.close();
    }
  });
}
