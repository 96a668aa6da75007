// Captions from speech (docs/decisions/captions.md): ffmpeg writes the source's sound (the whole, or
// one piece's span of a long video) as 16 kHz mono WAV, the speech engine (transcribe/transcribe.py,
// faster-whisper, a child process) answers the words it heard with their times, and the words go up
// as JSON (TranscribedWords) on the source's timeline. The orchestrator joins every piece's words and
// cuts the cues once. Takes an encode slot: the engine keeps a core busy.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { TranscribeRequest__Output, TranscribeResult } from '@kino/proto';
import { transcribes, workContentTypes, type TranscribedWords } from '@kino/proto/contract';
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
  if (!request.wordsUrl) throw new InvalidRequestError('words_url is required');
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
    const span = { startSeconds: request.startSeconds, endSeconds: request.endSeconds };
    await runFfmpeg(speechAudioArgs({ input: request.inputUrl, output: audio, ...span }), { signal, logger, priority });
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
    // The engine's times are the piece's; the orchestrator joins pieces on the source's timeline.
    const heard: TranscribedWords = {
      language: result.language,
      words: result.words.map((word) => ({
        startSeconds: round3(word.start + span.startSeconds),
        endSeconds: round3(word.end + span.startSeconds),
        text: word.text,
      })),
    };
    const wordsPath = join(jobDir, 'words.json');
    await writeFile(wordsPath, JSON.stringify(heard));
    await uploadFile(wordsPath, request.wordsUrl, workContentTypes.transcriptPiece, signal);
    return { language: result.language, words: heard.words.length, audioSeconds: result.durationSeconds };
  });
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
