import { test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { makeJobDir, processWorkDir, removeLeftoverJobDirs, withJobDir } from './job-dir.ts';

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

test('a starting node removes the job directories of node processes that are gone, and only those', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'kino-jobdir-'));
  try {
    const gone = spawnSync('true').pid!; // a process that has exited: its directory is a kill -9's leftover
    const left = processWorkDir(workDir, gone);
    mkdirSync(join(left, 'vid_1-a1-x'), { recursive: true });
    writeFileSync(join(left, 'vid_1-a1-x', 'seg-00000.m4s'), 'partial');
    const live = [processWorkDir(workDir), processWorkDir(workDir, process.ppid)];
    for (const dir of live) mkdirSync(dir, { recursive: true });
    mkdirSync(join(workDir, 'not-a-node-dir'));

    assert.deepEqual(await removeLeftoverJobDirs(workDir), [left]);
    assert.deepEqual(readdirSync(workDir).sort(), [...live.map((dir) => basename(dir)), 'not-a-node-dir'].sort());
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
});

test('a job directory is removed after its work, whether the work succeeded or failed', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'kino-jobdir-'));
  try {
    let used = '';
    const result = await withJobDir(workDir, 'vid_1-thumb', 'thumb', async (dir) => {
      used = dir;
      writeFileSync(join(dir, 'thumbnail.jpg'), 'jpeg');
      return 'made';
    });
    assert.equal(result, 'made');
    assert.equal(dirname(used), workDir);
    assert.equal(existsSync(used), false, 'removed after success');

    const failure = new Error('ffmpeg failed');
    await assert.rejects(
      withJobDir(workDir, 'vid_1-thumb', 'thumb', async (dir) => {
        used = dir;
        writeFileSync(join(dir, 'partial.jpg'), 'jp');
        throw failure;
      }),
      (error: unknown) => error === failure,
    );
    assert.equal(existsSync(used), false, 'removed after failure');
    assert.deepEqual(readdirSync(workDir), []);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
});
