// The quality score (VMAF, PSNR) of the renditions an HLS encode wrote, against the source frames
// they were made from, when the orchestrator asks for it (measure_quality). A score is information,
// not output: when it cannot be made the encode stands and says so in the log.
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { ProbeResult__Output, RenditionDone } from '@kino/proto';
import { hlsInitName } from '@kino/proto/contract';
import { parseQualityLog, qualityArgs, runFfmpeg } from '@kino/ffmpeg';
import type { EncodeJobOptions } from './encode-options.ts';
import type { EncodedRendition } from './hls-checks.ts';

/** A rendition's score against the source: 0 frames when it was not measured. */
export type QualityResult = Pick<Required<RenditionDone>, 'vmaf' | 'psnr' | 'qualityFrames'>;
export const notMeasured: QualityResult = { vmaf: 0, psnr: 0, qualityFrames: 0 };

/** The scores of an encode that was not asked to measure quality: none. */
export function notScored(): Map<string, QualityResult> {
  return new Map();
}

/**
 * Which frames a node scores: one in ten of the encode's first segment. libvmaf at the source's size
 * is dear: every third frame of a 30 s 1080p chunk of the `high` ladder cost 1.6x the chunk's
 * encode (90 against 55 CPU seconds), every frame 4x; this sample costs 6.5 CPU seconds (12 %),
 * and its scores were within 0.8 of every frame's (docs/decisions/quality.md#in-the-farm).
 */
const qualitySubsample = 10;

/**
 * Scores the encoded renditions (init and first segment, still in `outDir`) against the source, in
 * one pass over one decode of it, from `startSeconds` (0, or a chunk's start). Only renditions
 * with a picture are scored; the result has a score by key for each, or none when scoring failed.
 */
export async function scoreRenditions(
  { request, qualityFfmpeg, threads, priority, signal, logger }: EncodeJobOptions,
  source: ProbeResult__Output,
  encoded: EncodedRendition[],
  { outDir, jobDir, startSeconds }: { outDir: string; jobDir: string; startSeconds: number },
): Promise<Map<string, QualityResult>> {
  const results = new Map<string, QualityResult>();
  const scored = encoded.filter(({ rendition }) => !rendition.settings.audioOnly);
  if (scored.length === 0) return results;
  if (!qualityFfmpeg) {
    logger.warn('quality not measured: this node has no quality ffmpeg (NODE_QUALITY_FFMPEG)');
    return results;
  }
  const renditions = scored.map(({ rendition }) => ({
    key: rendition.spec.key,
    input: join(jobDir, `${rendition.spec.key}-sample.mp4`),
    logPath: join(jobDir, `${rendition.spec.key}-quality.json`),
  }));
  try {
    for (const [k, { rendition, playlist }] of scored.entries()) {
      const dir = join(outDir, rendition.spec.key);
      await writeFile(
        renditions[k]!.input,
        Buffer.concat([await readFile(join(dir, hlsInitName)), await readFile(join(dir, playlist.segments[0]!.uri))]),
      );
    }
    const settings = scored[0]!.rendition.settings;
    await runFfmpeg(
      qualityArgs({
        renditions,
        reference: request.inputUrl,
        width: source.width,
        height: source.height,
        threads: threads || cpus().length,
        subsample: qualitySubsample,
        window: { startSeconds, durationSeconds: scored[0]!.playlist.segments[0]!.durationSeconds },
        ...(settings.capFrameRate ? { frameRate: settings.frameRate } : {}),
        ...(settings.toneMapFrom ? { toneMapFrom: settings.toneMapFrom } : {}),
      }),
      { program: qualityFfmpeg, signal, logger, priority },
    );
    for (const { key, logPath } of renditions) {
      const score = parseQualityLog(await readFile(logPath, 'utf8'));
      results.set(key, { vmaf: score.vmaf, psnr: score.psnr, qualityFrames: score.frames });
    }
    logger.info({ scores: Object.fromEntries(results) }, 'quality measured');
  } catch (error) {
    if (signal.aborted) throw error;
    logger.warn({ err: error }, 'quality not measured: the scoring failed');
    results.clear();
  }
  return results;
}
