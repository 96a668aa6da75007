// What this node tells the registry it can do (issue 54): the encoders of its ffmpeg that work
// (a one-frame test encode each, @kino/ffmpeg detectWorkingEncoders) and whether its quality ffmpeg
// works. Detected once at start, in well under a second: a GPU added later needs a restart.
import type { Logger } from 'pino';
import { describeSpeechEngine, type SpeechEngine } from './jobs/transcribe.ts';
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

/**
 * The node's speech engine (captions from speech), when NODE_TRANSCRIBE_MODEL names a model and the
 * engine loads it: the model answers which languages it transcribes. Loading tiny.en takes about a
 * second; it runs beside the encoder tests. A model that does not load is logged and leaves the
 * node without the capability, as a quality ffmpeg that fails its test does.
 */
export async function detectSpeechEngine(
  speech: { python: string; model: string } | undefined,
  logger: Pick<Logger, 'warn'>,
): Promise<SpeechEngine | undefined> {
  if (!speech) return undefined;
  try {
    const languages = await describeSpeechEngine(speech);
    return languages.length > 0 ? { ...speech, languages } : undefined;
  } catch (error) {
    logger.warn({ err: error, ...speech }, 'the speech engine does not load its model: this node transcribes nothing');
    return undefined;
  }
}
