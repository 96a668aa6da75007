// The encoding parameters of a process or ingest call, as the video keeps them: the call's, its
// environment's defaults and the contract's (withDefaultParameters), checked (400
// invalid_parameters naming the field), a watermark's image found among the environment's.
import { getEnvironment } from '@kino/database/repositories';
import type { EncodingParameters, WatermarkRequest } from '@kino/proto/contract';
import { checkTranscribeLanguages } from './generated-subtitles.ts';
import type { ApiDeps } from '../deps.ts';
import { ValidationError } from '../http/errors.ts';
import { assertWatermarkImage } from '../schemas/watermarks.ts';
import { checkEncodingParameters, withDefaultParameters } from './encoding-parameters.ts';

export async function parametersOfRequest(
  deps: ApiDeps,
  { orgId, envId }: { orgId: string; envId: string },
  body: Partial<Omit<EncodingParameters, 'watermark' | 'generatedSubtitles'>> & {
    watermark?: WatermarkRequest;
    generatedSubtitles?: { language?: string; label?: string }[];
  },
): Promise<EncodingParameters> {
  // The environment's encode settings are the defaults of what the call leaves out.
  const { generatedSubtitles: asked = [], ...encoding } = body;
  const parameters = withDefaultParameters(encoding, await getEnvironment(deps.db, envId));
  const errors = checkEncodingParameters(parameters);
  if (errors.length) {
    throw new ValidationError('invalid_parameters', errors.map((e) => e.message).join('; '), errors);
  }
  // The environment's own was checked when it was set (images are never removed).
  if (body.watermark) await assertWatermarkImage(deps, { orgId, envId }, body.watermark, 'invalid_parameters');
  const generatedSubtitles = await checkTranscribeLanguages(
    deps,
    asked,
    (index) => `body.generatedSubtitles.${index}.language`,
  );
  return { ...parameters, ...(generatedSubtitles.length > 0 ? { generatedSubtitles } : {}) };
}
