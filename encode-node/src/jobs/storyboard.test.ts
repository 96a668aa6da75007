import { test } from 'vitest';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { backgroundNiceness, threadNiceness } from '@kino/ffmpeg';
import { planStoryboard } from '@kino/proto/contract';
import { runStoryboardJob, storyboardVtt } from './storyboard.ts';

/** This process's children named `comm` (/proc, Linux): their pids. */
function children(comm: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // After the command's closing parenthesis: field 3 (state) on; the parent is field 4.
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[4 - 3]);
        return parent === process.pid && stat.includes(`(${comm})`) ? [Number(entry)] : [];
      } catch {
        return []; // exited meanwhile
      }
    });
}

test('the VTT: a cue per tile, back to back from 0 to the end, row by row across sheets', () => {
  const vtt = storyboardVtt(planStoryboard(13.04), { width: 160, height: 90 }, 13.04);
  assert.equal(
    vtt,
    [
      'WEBVTT',
      '',
      '00:00:00.000 --> 00:00:05.000',
      'storyboard-0.jpg#xywh=0,0,160,90',
      '',
      '00:00:05.000 --> 00:00:10.000',
      'storyboard-0.jpg#xywh=160,0,160,90',
      '',
      '00:00:10.000 --> 00:00:13.040',
      'storyboard-0.jpg#xywh=320,0,160,90',
      '',
    ].join('\n'),
  );
  // 505 s: 101 tiles, the 101st opens the second sheet at its top left; hours are written.
  const long = storyboardVtt(planStoryboard(505), { width: 160, height: 90 }, 505).split('\n');
  assert.ok(long.includes('storyboard-0.jpg#xywh=1440,810,160,90'));
  assert.deepEqual(long.slice(-3), ['00:08:20.000 --> 00:08:25.000', 'storyboard-1.jpg#xywh=0,0,160,90', '']);
  assert.ok(
    storyboardVtt(planStoryboard(4000), { width: 160, height: 90 }, 4000).includes('01:06:35.000 --> 01:06:40.000'),
  );
});

test('a storyboard decodes at the background nice value: it never slows an encode somebody waits for', async () => {
  // A source that never arrives keeps ffmpeg running, holding the connection, until the job is stopped.
  let held: ServerResponse | undefined;
  const server = createServer();
  const connected = new Promise<void>((resolve) => {
    server.on('request', (_request, response) => {
      held = response;
      resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const stop = new AbortController();
  const plan = planStoryboard(20);
  const job = runStoryboardJob({
    request: {
      jobId: 'storyboard-niceness',
      inputUrl: `http://127.0.0.1:${port}/source.mp4`,
      durationSeconds: 20,
      sheetUrls: Array.from({ length: plan.sheets }, (_, i) => `http://127.0.0.1:${port}/sheet-${i}`),
      vttUrl: `http://127.0.0.1:${port}/vtt`,
      dynamicRange: '',
    },
    workDir: tmpdir(),
    signal: stop.signal,
    logger: pino({ level: 'silent' }),
  });
  try {
    await connected;
    const [ffmpeg, ...others] = children('ffmpeg');
    assert.equal(others.length, 0, 'one ffmpeg');
    const threads = threadNiceness(ffmpeg!);
    assert.ok(threads.length > 0);
    assert.deepEqual(new Set(threads), new Set([backgroundNiceness]), 'every thread niced');
  } finally {
    stop.abort();
    await job.catch(() => {});
    held?.destroy();
    server.close();
  }
});

/** The mean luma of each tile of a storyboard sheet (a JPEG), row by row: decoded by ffmpeg to gray. */
function tileLumas(sheet: Buffer, tile: { width: number; height: number }, columns: number, rows: number): number[] {
  const gray = execFileSync('ffmpeg', ['-v', 'error', '-i', '-', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], {
    input: sheet,
  });
  const width = tile.width * columns;
  const means: number[] = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      let sum = 0;
      for (let y = row * tile.height; y < (row + 1) * tile.height; y++) {
        for (let x = column * tile.width; x < (column + 1) * tile.width; x++) sum += gray[y * width + x]!;
      }
      means.push(sum / (tile.width * tile.height));
    }
  }
  return means;
}

test('every tile holds a picture: a 2 s video has its one, an 11 s video its three (the last from its final second)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kino-storyboard-'));
  const sheets = new Map<string, Buffer>();
  const storage = createServer((request, response) => {
    const body: Buffer[] = [];
    request.on('data', (chunk: Buffer) => body.push(chunk));
    request.on('end', () => {
      sheets.set(request.url!, Buffer.concat(body));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
  const { port } = storage.address() as { port: number };
  try {
    for (const seconds of [2, 11]) {
      const source = join(dir, `${seconds}.mp4`);
      // Bright, moving pictures: a tile left empty is the tile filter's black padding.
      const made = spawnSync('ffmpeg', [
        ...['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=320x180:rate=25:duration=${seconds}`],
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', source],
      ]);
      assert.equal(made.status, 0, String(made.stderr));
      const plan = planStoryboard(seconds);
      const result = await runStoryboardJob({
        request: {
          jobId: `storyboard-${seconds}`,
          inputUrl: source,
          durationSeconds: seconds,
          sheetUrls: Array.from({ length: plan.sheets }, (_, i) => `http://127.0.0.1:${port}/${seconds}/sheet-${i}`),
          vttUrl: `http://127.0.0.1:${port}/${seconds}/vtt`,
          dynamicRange: '',
        },
        workDir: dir,
        signal: new AbortController().signal,
        logger: pino({ level: 'silent' }),
      });
      assert.equal(result.tiles, Math.ceil(seconds / 5));
      const lumas = tileLumas(
        sheets.get(`/${seconds}/sheet-0`)!,
        { width: Number(result.tileWidth), height: Number(result.tileHeight) },
        plan.columns,
        plan.rows,
      );
      assert.equal(lumas.length, result.tiles);
      for (const [i, luma] of lumas.entries())
        assert.ok(luma > 60, `tile ${i} of the ${seconds} s video is dark (${luma})`);
    }
  } finally {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
