// Captions from speech (docs/decisions/captions.md): the words a node's speech engine heard, cut
// into cues; the languages a generated track may ask for; the transcript read back from a track.
import type { Cue, WebVtt } from './captions.ts';

/** One word the engine heard, on the video's timeline. */
export interface SpokenWord {
  startSeconds: number;
  endSeconds: number;
  /** The word as the engine wrote it, with its punctuation. */
  text: string;
}

/** `language` of a generated track that asks the engine to detect it. */
export const detectLanguage = 'auto';

/** A cue ends at a sentence's end, or before it grows past these (two lines of a common 42-character limit). */
export const cueLimits = { maxCharacters: 84, maxSeconds: 7, maxSilenceSeconds: 1.2 } as const;

const sentenceEnd = /[.!?…。？！]["'»”)]*$/;

/**
 * Cues from words, in order: a cue ends after a word that ends a sentence, before a silence longer
 * than maxSilenceSeconds, and before a word that would take it past maxCharacters or maxSeconds. Each
 * cue starts at its first word and ends at its last, so a cue shows while its words are spoken.
 */
export function cuesFromWords(words: readonly SpokenWord[]): Cue[] {
  const cues: Cue[] = [];
  let current: SpokenWord[] = [];
  const flush = () => {
    if (current.length === 0) return;
    cues.push({
      startSeconds: current[0]!.startSeconds,
      endSeconds: Math.max(current.at(-1)!.endSeconds, current[0]!.startSeconds + 0.001),
      settings: '',
      text: current.map((word) => word.text.trim()).join(' '),
    });
    current = [];
  };
  for (const word of words) {
    if (word.text.trim() === '') continue;
    const last = current.at(-1);
    if (last) {
      const length = current.reduce((sum, w) => sum + w.text.trim().length + 1, 0) + word.text.trim().length;
      if (
        word.startSeconds - last.endSeconds > cueLimits.maxSilenceSeconds ||
        length > cueLimits.maxCharacters ||
        word.endSeconds - current[0]!.startSeconds > cueLimits.maxSeconds
      )
        flush();
    }
    current.push(word);
    if (sentenceEnd.test(word.text.trim())) flush();
  }
  flush();
  return cues;
}

/** The transcript of a caption track, as `GET .../transcript` answers it. */
export interface Transcript {
  language: string;
  source: 'uploaded' | 'generated';
  /** The cues' text, one cue a line, without markup. */
  text: string;
  cues: { startSeconds: number; endSeconds: number; text: string }[];
}

/** A cue's words as plain text: WebVTT tags (`<v Roger>`, `<i>`, timestamps) and entities removed, lines joined. */
export function plainCueText(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** The transcript of a parsed track. */
export function transcriptOf(vtt: WebVtt, track: { language: string; source: Transcript['source'] }): Transcript {
  const cues = vtt.cues
    .map((cue) => ({ startSeconds: cue.startSeconds, endSeconds: cue.endSeconds, text: plainCueText(cue.text) }))
    .filter((cue) => cue.text !== '');
  return { language: track.language, source: track.source, text: cues.map((cue) => cue.text).join('\n'), cues };
}
