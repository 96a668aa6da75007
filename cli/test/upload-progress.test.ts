// The upload bars as a terminal shows them: sizes in MiB on both sides of the slash.
import { afterEach, test } from 'vitest';
import assert from 'node:assert/strict';
import { uploadProgress } from '../src/upload-progress.ts';

const stderr = process.stderr as NodeJS.WriteStream & { isTTY?: boolean };
const saved = { isTTY: stderr.isTTY, write: stderr.write };

afterEach(() => {
  stderr.isTTY = saved.isTTY;
  stderr.write = saved.write;
});

test('a bar shows the bytes sent and the file size both in MiB, one decimal', async () => {
  let shown = '';
  stderr.isTTY = true;
  stderr.write = ((chunk: string | Uint8Array) => {
    shown += chunk.toString();
    return true;
  }) as typeof stderr.write;
  const bars = await uploadProgress(['clip.mp4']);
  const size = 22_807_333; // 21.75 MiB
  bars.update(0, { bytesSent: 10 * 1024 * 1024, totalBytes: size, bytesPerSecond: 2 * 1024 * 1024 });
  bars.stop();
  stderr.isTTY = saved.isTTY;
  stderr.write = saved.write;
  assert.match(shown, /10\.0\/21\.8 MiB 2\.0 MiB\/s/);
  assert.doesNotMatch(shown, /22807333/);
});
