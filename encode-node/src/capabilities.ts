// What this node tells the registry it can do (issue 54): the encoders of its ffmpeg that work
// (a one-frame test encode each, @kino/ffmpeg detectWorkingEncoders) and whether its quality ffmpeg
// works. Detected once at start, in well under a second: a GPU added later needs a restart.
import { detectWorkingEncoders, isWorkingQualityFfmpeg, runForDetection, type ProgramRunner } from '@kino/ffmpeg';

export interface DetectedCapabilities {
  encoders: string[];
  qualityFfmpeg: boolean;
}

/** Detects both at once: the ffmpeg on PATH's encoders and the quality ffmpeg, when one is configured. */
export async function detectCapabilities(
  qualityFfmpeg: string | undefined,
  run: ProgramRunner = runForDetection,
): Promise<DetectedCapabilities> {
  const [encoders, quality] = await Promise.all([
    detectWorkingEncoders('ffmpeg', run),
    qualityFfmpeg ? isWorkingQualityFfmpeg(qualityFfmpeg, run) : Promise.resolve(false),
  ]);
  return { encoders, qualityFfmpeg: quality };
}
