// A low-latency broadcast's files as the node sends them, its input a short file in place of the
// relay: each part once, and the last of each rung marked `last` (the one ffmpeg's ended playlist
// first listed), so that the orchestrator hints no part after it.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LiveFile } from '@kino/proto';
import { makeTestSource, test90pSpec, testEncodeOptions, testSource } from '../encode-options.fixture.ts';
import type { LiveEvent } from '../encode-options.ts';
import { runLiveJob } from './live.ts';

const dir = mkdtempSync(join(tmpdir(), 'kino-live-job-'));
const sourcePath = join(dir, 'source.mp4');

beforeAll(() => makeTestSource(sourcePath, 4.4));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('each part goes once, and only the last of each rung is marked last', async () => {
  const files: LiveFile[] = [];
  await runLiveJob(
    {
      ...testEncodeOptions({
        inputUrl: sourcePath,
        source: { ...testSource, width: 160, height: 90, durationSeconds: 0, videoDurationSeconds: 0 },
      }),
      workDir: dir,
      sendLive: async (event: LiveEvent) => {
        if ('file' in event) files.push(event.file);
      },
    },
    {
      renditions: [
        { ...test90pSpec, key: '90p', lowDelay: true },
        { ...test90pSpec, key: '90q', lowDelay: true },
      ],
      partSeconds: 1,
      broadcastStartedAtMs: 0,
      firstFileNumber: 0,
      startSeconds: 0,
    },
  );
  for (const key of ['90p', '90q']) {
    // A file's description (and `last`) goes on its last piece; these parts are one piece each.
    const parts = files.filter((f) => f.name?.startsWith(`${key}/part-`) && f.complete);
    assert.ok(parts.length >= 4, `${key}: ${parts.length} parts of 4.4 s`);
    assert.deepEqual(
      parts.map((f) => f.name),
      [...new Set(parts.map((f) => f.name))],
      `${key}: each part once`,
    );
    assert.deepEqual(
      parts.map((f) => f.last === true),
      parts.map((_, i) => i === parts.length - 1),
      `${key}: the last part, and only it, marked last`,
    );
  }
});
