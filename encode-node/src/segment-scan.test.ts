import { test, vi } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listFiles, scanFinishedSegments } from './segment-scan.ts';

/** Resolves once `condition` holds, checking every 10 ms (at most 10 s). */
async function waitFor(condition: () => unknown): Promise<void> {
  for (const deadline = Date.now() + 10_000; !condition();) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a scan reports the finished segments of every rendition by their name under the output directory, not what ffmpeg is still writing', async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'kino-scan-'));
  const reported: string[][] = [];
  const errors: unknown[] = [];
  let stop = () => {};
  try {
    for (const key of ['720p', '360p']) mkdirSync(join(outDir, key));
    writeFileSync(join(outDir, '720p', 'seg-00001.m4s'), 'b');
    writeFileSync(join(outDir, '720p', 'seg-00000.m4s'), 'a');
    writeFileSync(join(outDir, '720p', 'seg-00002.m4s.tmp'), 'being written');
    writeFileSync(join(outDir, '720p', 'init.mp4'), 'init');
    writeFileSync(join(outDir, '720p', 'playlist.m3u8.tmp'), '#EXTM3U');
    stop = scanFinishedSegments(
      outDir,
      ['720p/', '360p/'],
      (names) => void reported.push(names),
      (error) => errors.push(error),
      20,
    );
    await waitFor(() => reported.length >= 2);
    assert.deepEqual(reported.slice(0, 2), [['720p/seg-00000.m4s', '720p/seg-00001.m4s'], []]);

    writeFileSync(join(outDir, '360p', 'seg-00000.m4s'), 'c');
    await waitFor(() => reported.at(-1)?.includes('360p/seg-00000.m4s'));
    assert.deepEqual(await listFiles(join(outDir, '720p')), [
      'init.mp4',
      'playlist.m3u8.tmp',
      'seg-00000.m4s',
      'seg-00001.m4s',
      'seg-00002.m4s.tmp',
    ]);
    assert.deepEqual(errors, []);
  } finally {
    stop();
    rmSync(outDir, { recursive: true, force: true });
  }
});

test('a scan that fails (a rendition directory gone) reports the failure; a stopped scan leaves no timer behind', async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'kino-scan-'));
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  try {
    const errors: unknown[] = [];
    let reports = 0;
    const stop = scanFinishedSegments(
      outDir,
      ['720p/'],
      () => void reports++,
      (error) => errors.push(error),
      20,
    );
    assert.equal(vi.getTimerCount(), 1);
    await vi.advanceTimersByTimeAsync(20);
    await waitFor(() => errors.length > 0);
    assert.equal((errors[0] as NodeJS.ErrnoException).code, 'ENOENT');
    assert.equal(reports, 0);
    stop();
    assert.equal(vi.getTimerCount(), 0, 'stopped: no scan runs again');
  } finally {
    vi.useRealTimers();
    rmSync(outDir, { recursive: true, force: true });
  }
});
