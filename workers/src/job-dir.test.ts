import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { makeJobDir } from './job-dir.ts';

test('a job id with slashes and colons still gets a directory inside the work dir', async () => {
  const workDir = join(mkdtempSync(join(tmpdir(), 'kino-jobdir-')), 'not-yet-made');
  try {
    const dir = await makeJobDir(workDir, 'video:vid_1/thumb@2', 'thumb');
    assert.equal(dirname(dir), workDir);
    assert.match(basename(dir), /^video_vid_1_thumb_2-/);
    assert.ok(statSync(dir).isDirectory());
    const fallback = await makeJobDir(workDir, '', 'thumb');
    assert.match(basename(fallback), /^thumb-/);
  } finally {
    rmSync(dirname(workDir), { recursive: true, force: true });
  }
});
