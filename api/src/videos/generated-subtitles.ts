// Captions from speech as the API takes them (docs/decisions/captions.md): each language asked must
// be `auto` or one some node's speech engine transcribes; the installed Whisper tiny.en is English
// only, so anything else answers 400 unsupported_language naming the field.
import { listTranscribeLanguages } from '@kino/database/repositories';
import { detectLanguage, transcribes, type GeneratedSubtitlesRequest } from '@kino/proto/contract';
import type { ApiDeps } from '../deps.ts';
import { ValidationError } from '../http/errors.ts';
import { canonicalLanguage } from '../routes/captions.ts';

/** The languages asked, canonical (`EN-gb` → `en-GB`), each checked against the farm's speech engines at `location(i)`. */
export async function checkTranscribeLanguages(
  deps: Pick<ApiDeps, 'db'>,
  asked: readonly { language?: string; label?: string }[],
  location: (index: number) => string,
): Promise<GeneratedSubtitlesRequest[]> {
  if (asked.length === 0) return [];
  const available = await listTranscribeLanguages(deps.db);
  return asked.map(({ language = detectLanguage, label }, index) => {
    const canonical = language === detectLanguage ? language : canonicalLanguage(language);
    if (canonical === undefined || !transcribes(available, canonical)) {
      const message =
        available.length === 0
          ? 'no encode node of this farm has a speech engine: captions cannot be made from speech'
          : canonical === undefined
            ? `language must be "auto" or a BCP 47 tag such as "en"`
            : `the farm's speech engines transcribe ${available.join(', ')}, not "${language}"`;
      throw new ValidationError('unsupported_language', message, [
        { message, location: location(index), value: language },
      ]);
    }
    return { language: canonical, ...(label !== undefined ? { label } : {}) };
  });
}
