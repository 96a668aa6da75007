// One progress bar per file on stderr (bytes, rate, time left), only when stderr is a terminal:
// piped or redirected, uploads are silent but for the notes the command writes itself.
import type { UploadProgress } from '@kino/sdk';
import { showsProgress } from './output.ts';

export interface UploadBars {
  update(index: number, progress: UploadProgress): void;
  finish(index: number): void;
  /** A line above the bars (or on stderr alone without them). */
  log(line: string): void;
  stop(): void;
}

export const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

export async function uploadProgress(names: string[]): Promise<UploadBars> {
  if (!showsProgress()) {
    return {
      update: () => undefined,
      finish: () => undefined,
      log: (line) => process.stderr.write(`${line}\n`),
      stop: () => undefined,
    };
  }
  const { MultiBar, Presets } = await import('cli-progress');
  const multibar = new MultiBar(
    {
      // `{total}` and `{value}` are cli-progress's own tokens (the bar's numbers, here bytes): the
      // payload's sizes in MiB are `{sent}` and `{size}`.
      format: '{name} |{bar}| {percentage}% {sent}/{size} MiB {rate} MiB/s {eta_formatted} left',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      etaBuffer: 20,
      stream: process.stderr,
    },
    Presets.shades_classic,
  );
  const width = Math.max(...names.map((name) => name.length));
  const bars = names.map((name) =>
    multibar.create(1, 0, { name: name.padEnd(width), sent: '0.0', size: '?', rate: '0.0' }),
  );
  let stopped = false;
  return {
    update(index, { bytesSent, totalBytes, bytesPerSecond }) {
      const bar = bars[index]!;
      bar.setTotal(Math.max(1, totalBytes));
      bar.update(bytesSent, { sent: mib(bytesSent), size: mib(totalBytes), rate: mib(bytesPerSecond) });
    },
    finish(index) {
      const bar = bars[index]!;
      bar.update(bar.getTotal());
    },
    log(line) {
      multibar.log(`${line}\n`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      multibar.stop();
    },
  };
}
