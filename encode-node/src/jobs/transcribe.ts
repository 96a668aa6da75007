// Captions from speech (docs/decisions/captions.md): ffmpeg writes the source's sound as 16 kHz mono
// WAV, the speech engine (transcribe/transcribe.py, faster-whisper, a child process) answers the
// words it heard with their times, and the words are cut into cues (the contract's cuesFromWords)
// and uploaded as one WebVTT file. Takes an encode slot: the engine keeps a core busy.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { TranscribeRequest__Output, TranscribeResult } from '@kino/proto';
import { captionContentTypes, cuesFromWords, renderWebVtt, transcribes, type SpokenWord } from '@kino/proto/contract';
import { ProcessPriority, backgroundNiceness, runFfmpeg, runProgram, speechAudioArgs } from '@kino/ffmpeg';
import { FfmpegFailedError, InvalidRequestError } from '../errors.ts';
import { withJobDir } from '../job-dir.ts';
import { uploadFile } from '../upload.ts';

/** The one script of the speech engine, beside this package's sources. */
export const speechEngineScript = new URL('../../transcribe/transcribe.py', import.meta.url).pathname;

/** A node's speech engine: the Python that has faster-whisper, and the model directory it loads. */
export interface SpeechEngine {
  python: string;
  model: string;
  /** The languages the model transcribes (describeSpeechEngine). */
  languages: readonly string[];
}

/** The languages the engine's model transcribes (an English-only Whisper: `en`); throws when the engine does not run. */
export async function describeSpeechEngine({
  python,
  model,
}: Pick<SpeechEngine, 'python' | 'model'>): Promise<string[]> {
  const stdout = await runProgram(python, [speechEngineScript, 'describe', '--model', model]);
  const { languages } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { languages: string[] };
  return languages;
}

interface EngineResult {
  language: string;
  durationSeconds: number;
  words: { start: number; end: number; text: string }[];
}

/** The words of the engine's last stdout line (`{"result": ...}`); progress lines before it are skipped. */
export function parseEngineOutput(stdout: string): EngineResult {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  let parsed: { result?: EngineResult };
  try {
    parsed = JSON.parse(last) as { result?: EngineResult };
  } catch {
    throw new FfmpegFailedError(`the speech engine wrote no result: ${last.slice(0, 200)}`);
  }
  if (!parsed.result) throw new FfmpegFailedError(`the speech engine wrote no result: ${last.slice(0, 200)}`);
  return parsed.result;
}

export interface TranscribeJobOptions {
  request: TranscribeRequest__Output;
  engine: SpeechEngine | undefined;
  workDir: string;
  threads: number;
  signal: AbortSignal;
  logger: Logger;
}

export async function runTranscribeJob({
  request,
  engine,
  workDir,
  threads,
  signal,
  logger,
}: TranscribeJobOptions): Promise<TranscribeResult> {
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
  if (!request.vttUrl) throw new InvalidRequestError('vtt_url is required');
  const language = request.language || 'auto';
  if (!engine || !transcribes(engine.languages, language)) {
    throw new InvalidRequestError(
      `this node's speech engine does not transcribe "${language}" (it does: ${engine?.languages.join(', ') || 'none'})`,
    );
  }
  return withJobDir(workDir, request.jobId, 'transcribe', async (jobDir) => {
    const audio = join(jobDir, 'speech.wav');
    // Niced as a background encode: a viewer never waits for captions.
    const priority = new ProcessPriority(backgroundNiceness);
    await runFfmpeg(speechAudioArgs({ input: request.inputUrl, output: audio }), { signal, logger, priority });
    const stdout = await runProgram(
      engine.python,
      [
        speechEngineScript,
        'run',
        '--model',
        engine.model,
        '--audio',
        audio,
        '--language',
        language === 'auto' ? 'auto' : language.split('-')[0]!.toLowerCase(),
        // One core per job unless the operator gives encodes more: a slot is a core's worth of work.
        '--threads',
        String(Math.max(1, threads)),
      ],
      { signal, logger, priority },
    );
    const result = parseEngineOutput(stdout);
    const words: SpokenWord[] = result.words.map((word) => ({
      startSeconds: word.start,
      endSeconds: word.end,
      text: word.text,
    }));
    const cues = cuesFromWords(words);
    const vttPath = join(jobDir, 'captions.vtt');
    await writeFile(vttPath, renderWebVtt({ preamble: [], cues }));
    await uploadFile(vttPath, request.vttUrl, captionContentTypes.vtt, signal);
    return { language: result.language, cues: cues.length, words: words.length, audioSeconds: result.durationSeconds };
  });
}
