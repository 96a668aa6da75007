// Every part logs in full to .kino/logs/<name>.log; the console shows only the lines that need a
// developer's eyes (errors), prefixed with the part's name, and the last lines of a part that dies.
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Error lines that are not, kept in the log file only:
 * - SeaweedFS logs one at each start about STS, which Kino does not use;
 * - SeaweedFS logs an error (glog `E…`) when a reader closes a ranged read before the end, the
 *   normal way players and delivery stop a transfer they no longer need: the write that follows
 *   finds the connection reset or the pipe broken.
 */
const knownHarmless = [
  /Failed to load IAM configuration: no signing key found for STS/,
  /^E\d{4} .*(connection reset by peer|broken pipe)/,
];

/** pino levels are numbers (50 error, 60 fatal); Temporal and others write names. */
function jsonLevelIsError(level: unknown): boolean {
  if (typeof level === 'number') return level >= 50;
  return typeof level === 'string' && ['error', 'fatal', 'panic', 'dpanic', 'critical'].includes(level.toLowerCase());
}

/**
 * Whether a log line reports an error. `fromKinoProcess` marks our own Node processes: their
 * structured logs go to stdout, so anything unstructured on their stderr is a crash or a config
 * error and always shown.
 */
export function isErrorLine(line: string, stream: 'stdout' | 'stderr', fromKinoProcess: boolean): boolean {
  const trimmed = line.trim();
  if (!trimmed || knownHarmless.some((pattern) => pattern.test(trimmed))) return false;
  if (trimmed.startsWith('{')) {
    try {
      const record = JSON.parse(trimmed) as { level?: unknown };
      return jsonLevelIsError(record.level);
    } catch {
      // not JSON after all: fall through
    }
  }
  if (fromKinoProcess && stream === 'stderr') return true;
  if (/^[EF]\d{4} /.test(trimmed)) return true; // glog (SeaweedFS): E1121 ..., F1121 ...
  return /\b(ERROR|FATAL|PANIC):/.test(trimmed); // PostgreSQL
}

/** The human part of a line: pino's `msg` (and `err.message`) rather than the whole JSON record. */
export function summarizeLine(line: string): string {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return trimmed;
  try {
    const record = JSON.parse(trimmed) as {
      msg?: unknown;
      message?: unknown;
      err?: { message?: unknown };
      error?: unknown;
    };
    const message = record.msg ?? record.message;
    if (typeof message !== 'string') return trimmed;
    const cause =
      typeof record.err?.message === 'string'
        ? record.err.message
        : typeof record.error === 'string'
          ? record.error
          : '';
    return cause && !message.includes(cause) ? `${message}: ${cause}` : message;
  } catch {
    return trimmed;
  }
}

export interface ConsoleTail {
  /** The last lines the part wrote, for the message when it dies. */
  recent(): string[];
}

/** Mirrors a child's error lines to the console as `[name] ...`; the log file gets everything anyway. */
export function tailErrorsToConsole(
  name: string,
  child: ChildProcess,
  { fromKinoProcess, print }: { fromKinoProcess: boolean; print: (line: string) => void },
): ConsoleTail {
  const keep = 20;
  const recent: string[] = [];
  const width = 12;
  for (const stream of ['stdout', 'stderr'] as const) {
    const source = child[stream];
    if (!source) continue;
    const lines = createInterface({ input: source, crlfDelay: Infinity });
    lines.on('line', (line) => {
      recent.push(line);
      if (recent.length > keep) recent.shift();
      if (isErrorLine(line, stream, fromKinoProcess)) print(`${`[${name}]`.padEnd(width)} ${summarizeLine(line)}`);
    });
  }
  return { recent: () => [...recent] };
}
