// Spoken test material for captions from speech (docs/decisions/captions.md): known sentences spoken
// by espeak-ng, laid on a timeline with silences between them (so each sentence's start is known to
// the sample), made into a video, optionally under noise or music at a given signal-to-noise ratio;
// and the word error rate of what an engine heard against what was said. Used by
// test/e2e/speech-captions.test.ts and bench/captions/.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { speechEngineScript } from '@kino/encode-node';

const run = promisify(execFile);

/** What the speech engine heard of a whole file, run directly (not through a node): the bench's figures and a test's baseline. */
export interface EngineHearing {
  /** The words, joined as the engine wrote them. */
  text: string;
  language: string;
  durationSeconds: number;
  cpuSeconds: number;
}

/** Runs the nodes' speech engine (speechEngineScript) on `audio` whole, on one thread. */
export async function hearWithEngine(
  engine: { python: string; model: string },
  audio: string,
  language = 'auto',
): Promise<EngineHearing> {
  const args = [speechEngineScript, 'run', '--model', engine.model, '--audio', audio, '--language', language];
  const { stdout } = await run(engine.python, [...args, '--threads', '1'], { maxBuffer: 64 * 1024 * 1024 });
  const { result } = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    result: { language: string; durationSeconds: number; cpuSeconds: number; words: { text: string }[] };
  };
  const text = result.words.map((word) => word.text).join('');
  return { text, language: result.language, durationSeconds: result.durationSeconds, cpuSeconds: result.cpuSeconds };
}

/** English sentences the engine is asked to hear: common words, as a talk would have them. The farm tests' talk (four cues). */
export const englishSentences = [
  'The quick brown fox jumps over the lazy dog.',
  'Every video on this site has captions.',
  'We measure how many words the machine gets wrong.',
  'The next train leaves at half past nine.',
];

/** Four more English sentences, for the corpus: eight a language make a WER less noisy than four (a word 1.5 %, not 3 %). */
const moreEnglishSentences = [
  'My sister lives in a small house near the lake.',
  'Please close the door when you leave.',
  'On the weekend the children play in the garden.',
  'The coffee in this bar is very good.',
];

/** German sentences, as common as the English ones, the same eight things said. */
export const germanSentences = [
  'Der Zug nach Berlin fährt um neun Uhr ab.',
  'Jedes Video auf dieser Seite hat Untertitel.',
  'Wir messen, wie viele Wörter die Maschine falsch versteht.',
  'Das Wetter ist heute schön und warm.',
  'Meine Schwester wohnt in einem kleinen Haus am See.',
  'Bitte schließen Sie die Tür, wenn Sie gehen.',
  'Am Wochenende spielen die Kinder im Garten.',
  'Der Kaffee in diesem Café ist sehr gut.',
];

/** Spanish sentences, as common as the English ones. */
export const spanishSentences = [
  'El tren a Madrid sale a las nueve de la mañana.',
  'Cada vídeo de este sitio tiene subtítulos.',
  'Medimos cuántas palabras entiende mal la máquina.',
  'Hoy hace buen tiempo y mucho calor.',
  'Mi hermana vive en una casa pequeña cerca del lago.',
  'Por favor cierra la puerta cuando salgas.',
  'El fin de semana los niños juegan en el jardín.',
  'El café de este bar es muy bueno.',
];

/** Italian sentences, as common as the English ones; no numbers, which Whisper writes as digits. */
export const italianSentences = [
  'Il treno per Roma parte questa mattina.',
  'Ogni video di questo sito ha i sottotitoli.',
  'Misuriamo quante parole la macchina sbaglia.',
  'Oggi il tempo è bello e fa caldo.',
  'Mia sorella abita in una piccola casa vicino al lago.',
  'Per favore chiudi la porta quando esci.',
  'Nel fine settimana i bambini giocano in giardino.',
  'Il caffè di questo bar è molto buono.',
];

/**
 * The spoken corpus per language: its sentences and the espeak-ng voice that speaks them. The voice
 * is the one Whisper base heard best of espeak-ng's own and Debian's MBROLA voices for the language
 * (docs/decisions/captions.md, "Languages"): it heard espeak-ng's own German and Italian voices at
 * 36 % and 32 % WER, mispronunciations as much as its errors, and MBROLA's diphone voices `mb-de4`
 * and `mb-it3` (test setup installs them) at 8 % and 19 %; Spanish is best in espeak-ng's Klatt
 * variant (15 %; every MBROLA Spanish voice did worse).
 */
export const speechCorpus = {
  en: { sentences: [...englishSentences, ...moreEnglishSentences], voice: 'en' },
  de: { sentences: germanSentences, voice: 'mb-de4' },
  it: { sentences: italianSentences, voice: 'mb-it3' },
  es: { sentences: spanishSentences, voice: 'es+klatt4' },
} as const;

/** espeak-ng's words per minute: slower than its default 175, which the small model mishears more often. */
export const speechWordsPerMinute = 130;

const sampleRate = 16_000;

export interface SpokenTrack {
  /** The WAV of the whole timeline (16 kHz mono). */
  path: string;
  /** When each sentence starts, in seconds: the first sample espeak-ng spoke above silence. */
  starts: number[];
  durationSeconds: number;
}

async function wavSeconds(path: string): Promise<number> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]);
  return Number(stdout.trim());
}

/** Seconds of silence espeak-ng leaves before its first sound (silencedetect's first silence end, or 0). */
async function leadingSilence(path: string): Promise<number> {
  const { stderr } = await run('ffmpeg', [
    '-hide_banner',
    '-i',
    path,
    '-af',
    'silencedetect=n=-50dB:d=0.02',
    '-f',
    'null',
    '-',
  ]);
  const first = /silence_start: (-?[\d.]+)[\s\S]*?silence_end: ([\d.]+)/.exec(stderr);
  return first && Number(first[1]) <= 0.001 ? Number(first[2]) : 0;
}

/**
 * Speaks `sentences` (espeak-ng, `voice`) one after another into `dir`/speech.wav: `leadSeconds` of
 * silence, then each sentence followed by `gapSeconds` of silence.
 */
export async function speakSentences({
  sentences,
  dir,
  // espeak-ng's default English: tiny.en heard it best of en, en-us and en-gb-x-rp (3 %, 12 %, 12 %).
  voice = 'en',
  leadSeconds = 1,
  gapSeconds = 1.5,
}: {
  sentences: readonly string[];
  dir: string;
  voice?: string;
  leadSeconds?: number;
  gapSeconds?: number;
}): Promise<SpokenTrack> {
  const parts: string[] = [];
  const starts: number[] = [];
  let at = leadSeconds;
  for (const [i, sentence] of sentences.entries()) {
    const raw = join(dir, `sentence-${i}.raw.wav`);
    const part = join(dir, `sentence-${i}.wav`);
    await run('espeak-ng', ['-v', voice, '-s', String(speechWordsPerMinute), '-w', raw, sentence]);
    await run('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      raw,
      '-ar',
      String(sampleRate),
      '-ac',
      '1',
      part,
    ]);
    starts.push(at + (await leadingSilence(part)));
    parts.push(part);
    at += (await wavSeconds(part)) + gapSeconds;
  }
  const path = join(dir, 'speech.wav');
  // Each part delayed to its place on the timeline, mixed: silence wherever nothing is spoken.
  let offset = leadSeconds;
  const delays: string[] = [];
  for (const [i, part] of parts.entries()) {
    delays.push(`[${i}:a]adelay=${Math.round(offset * 1000)}:all=1[a${i}]`);
    offset += (await wavSeconds(part)) + gapSeconds;
  }
  const mix = `${delays.join(';')};${parts.map((_, i) => `[a${i}]`).join('')}amix=inputs=${parts.length}:normalize=0,apad=whole_dur=${offset.toFixed(3)}[out]`;
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...parts.flatMap((part) => ['-i', part]),
    ...['-filter_complex', mix, '-map', '[out]', '-ar', String(sampleRate), '-ac', '1', path],
  ]);
  return { path, starts, durationSeconds: offset };
}

/** The pink noise's seed: the same noise every run, so a WER under noise compares between runs (unseeded, one run gave 18 %, another 27 %). */
const noiseSeed = 57;

/**
 * Mixes `speech` with a background at `snrDb` below it (by mean power over the whole track): `noise`
 * is pink noise (seeded), `music` a chord of three sines with a tremolo, both from ffmpeg's own sources.
 */
export async function mixBackground(
  speech: SpokenTrack,
  { kind, snrDb, path }: { kind: 'noise' | 'music'; snrDb: number; path: string },
): Promise<string> {
  const seconds = speech.durationSeconds.toFixed(3);
  const source =
    kind === 'noise'
      ? `anoisesrc=color=pink:sample_rate=${sampleRate}:duration=${seconds}:seed=${noiseSeed}`
      : `aevalsrc='(sin(2*PI*220*t)+sin(2*PI*277*t)+sin(2*PI*330*t))*(0.6+0.4*sin(2*PI*2*t))':s=${sampleRate}:d=${seconds}`;
  const background = join(speech.path.replace(/speech\.wav$/, ''), `${kind}-background.wav`);
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    source,
    '-ac',
    '1',
    background,
  ]);
  const [speechDb, backgroundDb] = await Promise.all([meanVolumeDb(speech.path), meanVolumeDb(background)]);
  const gainDb = speechDb - snrDb - backgroundDb;
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-i', speech.path, '-i', background],
    ...['-filter_complex', `[1:a]volume=${gainDb.toFixed(2)}dB[b];[0:a][b]amix=inputs=2:normalize=0[out]`],
    ...['-map', '[out]', path],
  ]);
  return path;
}

/** Mean volume (dB) of the spoken parts' timeline as ffmpeg's volumedetect measures it. */
async function meanVolumeDb(path: string): Promise<number> {
  const { stderr } = await run('ffmpeg', ['-hide_banner', '-i', path, '-af', 'volumedetect', '-f', 'null', '-']);
  return Number(/mean_volume: (-?[\d.]+) dB/.exec(stderr)![1]);
}

/** A small grey video carrying `audio` (H.264 and AAC), as long as the sound. */
export async function makeSpeechVideo(audio: string, path: string): Promise<string> {
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'color=c=gray:size=320x180:rate=24', '-i', audio],
    ...[
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-b:a',
      '96k',
      '-shortest',
      path,
    ],
  ]);
  return path;
}

/** Lower-case words without punctuation: "Dog," and "dog." are one word. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s-]/gu, ' ')
    .split(/[\s-]+/)
    .filter(Boolean);
}

/** (substitutions + deletions + insertions) / reference words: the word-level edit distance. */
export function wordErrorRate(reference: string, heard: string): number {
  const ref = wordsOf(reference);
  const hyp = wordsOf(heard);
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1));
    }
    previous = current;
  }
  return ref.length === 0 ? 0 : previous[hyp.length]! / ref.length;
}
