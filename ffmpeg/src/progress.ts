// Parses ffmpeg's `-progress pipe:1` output: blocks of key=value lines, each ending with
// `progress=continue` (or `progress=end` for the last one).

export interface FfmpegProgress {
  /** 0..100 of the expected duration (clamped: ffmpeg's clock can run past it or start negative). */
  percent: number;
  /** Media time written so far. */
  outTimeSeconds: number;
  /** Frames written so far. */
  frame: number;
  /** ffmpeg's `speed=`: how many times realtime. 0 when ffmpeg has not measured it yet. */
  speed: number;
  /** True for the last block, written when ffmpeg finishes. */
  done: boolean;
}

export function clampPercent(value: number): number {
  if (!Number.isFinite(value) || value < 0) return 0;
  return value > 100 ? 100 : value;
}

function toNumber(value: string | undefined): number {
  if (value === undefined) return 0;
  const parsed = Number.parseFloat(value);
  return Number.isFinite(parsed) ? parsed : 0;
}

/** Turns one block's fields into a progress report; `durationSeconds` 0 means unknown (percent stays 0). */
export function progressFromFields(fields: Map<string, string>, durationSeconds: number): FfmpegProgress {
  // out_time_us is microseconds (out_time_ms is too, despite its name: an old ffmpeg quirk).
  const micros = fields.get('out_time_us') ?? fields.get('out_time_ms');
  const outTimeSeconds = Math.max(0, toNumber(micros) / 1_000_000);
  return {
    percent: durationSeconds > 0 ? clampPercent((outTimeSeconds / durationSeconds) * 100) : 0,
    outTimeSeconds,
    frame: Math.max(0, Math.trunc(toNumber(fields.get('frame')))),
    speed: Math.max(0, toNumber(fields.get('speed'))), // "1.9x" parses to 1.9; "N/A" to 0
    done: fields.get('progress') === 'end',
  };
}

/** Feed it stdout chunks; it calls `onBlock` once per complete block. */
export class ProgressParser {
  private buffer = '';
  private fields = new Map<string, string>();

  private readonly durationSeconds: number;
  private readonly onBlock: (progress: FfmpegProgress) => void;
  constructor(durationSeconds: number, onBlock: (progress: FfmpegProgress) => void) {
    this.durationSeconds = durationSeconds;
    this.onBlock = onBlock;
  }

  push(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      const eq = line.indexOf('=');
      if (eq <= 0) continue;
      const key = line.slice(0, eq).trim();
      this.fields.set(key, line.slice(eq + 1).trim());
      if (key === 'progress') {
        const progress = progressFromFields(this.fields, this.durationSeconds);
        this.fields = new Map();
        this.onBlock(progress);
      }
    }
  }
}
