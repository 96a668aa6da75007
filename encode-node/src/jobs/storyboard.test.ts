import { test } from 'vitest';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
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
