// The one place that spawns ffmpeg and ffprobe. It reads no configuration: callers pass what it
// needs (working directory, expected duration, abort signal, logger).
import { spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { redactUrls } from '@kino/proto';
import type { ProcessPriority } from './priority.ts';
import { ProgressParser, type FfmpegProgress } from './progress.ts';

const stderrTailChars = 4000;

/** ffmpeg or ffprobe exited badly; `stderrTail` is the end of what it said, for logs and error messages. */
export class FfmpegError extends Error {
  readonly stderrTail: string;
  readonly program: string;
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  constructor(program: string, exitCode: number | null, exitSignal: NodeJS.Signals | null, stderrTail: string) {
    stderrTail = redactUrls(stderrTail);
    const how = exitCode !== null ? `exited with code ${exitCode}` : `was killed by ${exitSignal ?? 'a signal'}`;
    super(`${program} ${how}: ${lastLines(stderrTail, 5) || '(no error output)'}`);
    this.program = program;
    this.exitCode = exitCode;
    this.exitSignal = exitSignal;
    this.stderrTail = stderrTail;
    this.name = 'FfmpegError';
  }
}

/** The caller aborted the run; the process was killed. */
export class FfmpegAbortedError extends Error {
  constructor(program: string) {
    super(`${program} was aborted`);
    this.name = 'FfmpegAbortedError';
  }
}

function lastLines(text: string, count: number): string {
  return text.trim().split('\n').slice(-count).join(' | ');
}

interface RunOptions {
  cwd?: string;
  signal?: AbortSignal;
  logger?: Logger;
  /**
   * The job's nice value (absent: the caller's): the process starts at it and is tracked while it
   * runs, so that raising the job renices it. Background encodes run at `backgroundNiceness`, so an
   * encode a viewer waits for (at 0) takes the CPU first on a shared node.
   */
  priority?: ProcessPriority;
}

interface RunResult {
  stdout: string;
  stderrTail: string;
}

function run(
  program: string,
  args: string[],
  { cwd, signal, logger, priority }: RunOptions,
  onStdout?: (chunk: string) => void,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new FfmpegAbortedError(program));
      return;
    }
    logger?.debug({ program, args: args.map(redactUrls) }, 'spawning');
    const child = spawn(program, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let ended = () => {};
    if (priority && child.pid !== undefined) {
      const pid = child.pid;
      ended = () => priority.ended(pid);
      try {
        if (priority.started(pid).refused)
          logger?.warn({ niceness: priority.niceness }, 'could not set the nice value of ffmpeg: the system refused');
      } catch (error) {
        logger?.warn({ err: error, niceness: priority.niceness }, 'could not set the nice value of ffmpeg');
      }
    }
    let stdout = '';
    let stderrTail = '';
    let aborted = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (onStdout) onStdout(chunk);
      else stdout += chunk;
    });
    child.stderr.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-stderrTailChars);
    });
    // Aborting kills at once: a cancelled job's partial output is thrown away anyway.
    const abort = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', abort, { once: true });
    child.once('error', (error) => {
      ended();
      signal?.removeEventListener('abort', abort);
      reject(error);
    });
    // Not 'close' (its pipes closed): once the process has exited its pid may be reused.
    child.once('exit', () => ended());
    child.once('close', (code, exitSignal) => {
      signal?.removeEventListener('abort', abort);
      if (aborted) reject(new FfmpegAbortedError(program));
      else if (code === 0) resolve({ stdout, stderrTail });
      else reject(new FfmpegError(program, code, exitSignal, stderrTail));
    });
  });
}

export interface FfmpegRunOptions extends RunOptions {
  /** The ffmpeg to run: `ffmpeg` on PATH when absent (another build: the quality ffmpeg, for AV1). */
  program?: string;
  /** Expected media duration, so progress can be a percentage; 0 or absent: percent stays 0. */
  durationSeconds?: number;
  onProgress?: (progress: FfmpegProgress) => void;
  /** The end of what a run that exited 0 said on stderr (errors only): a damaged input is reported there, not in the exit code. */
  onErrorOutput?: (stderrTail: string) => void;
}

/**
 * Whether ffmpeg's error output says its input file ends before its own index does (the MP4
 * demuxer's `partial file`): a truncated or damaged source, which no retry mends.
 */
export function reportsTruncatedInput(stderrTail: string): boolean {
  return /partial file/.test(stderrTail);
}

/**
 * Runs ffmpeg with `args` (inputs, filters, outputs) after the flags every run shares: no banner,
 * no stdin, errors only on stderr, and machine-readable progress on stdout.
 * Resolves with the last progress block (its `frame` is the number of frames written).
 */
export async function runFfmpeg(args: string[], options: FfmpegRunOptions = {}): Promise<FfmpegProgress | undefined> {
  let last: FfmpegProgress | undefined;
  const parser = new ProgressParser(options.durationSeconds ?? 0, (progress) => {
    last = progress;
    options.onProgress?.(progress);
  });
  const fullArgs = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-progress', 'pipe:1', '-y', ...args];
  const { stderrTail } = await run(options.program ?? 'ffmpeg', fullArgs, options, (chunk) => parser.push(chunk));
  options.onErrorOutput?.(stderrTail);
  return last;
}

/** Runs `program` (an ffmpeg asked what it has: `-encoders`, `-filters`, a test encode) and returns its stdout. */
export async function runProgram(program: string, args: string[], options: RunOptions = {}): Promise<string> {
  const { stdout } = await run(program, args, options);
  return stdout;
}

/** Runs ffprobe and returns its stdout (callers ask for JSON with `-of json`). */
export async function runFfprobe(args: string[], options: RunOptions = {}): Promise<string> {
  const { stdout } = await run('ffprobe', ['-hide_banner', '-loglevel', 'error', ...args], options);
  return stdout;
}

/**
 * Input options for a URL. A connection storage drops mid-read is resumed with a range request
 * (without `-reconnect`, ffmpeg takes the drop for the end of the file and writes a truncated video
 * with exit code 0); a stalled one is given up after 30 s instead of holding a slot forever.
 * Presigned GETs support range requests, so ffmpeg can also seek to an MP4's trailing moov.
 */
export function inputArgsFor(input: string): string[] {
  if (!/^https?:\/\//.test(input)) return [];
  return [
    '-rw_timeout',
    '30000000',
    '-reconnect',
    '1',
    '-reconnect_on_network_error',
    '1',
    '-reconnect_on_http_error',
    '5xx',
    '-reconnect_delay_max',
    '10',
  ];
}
