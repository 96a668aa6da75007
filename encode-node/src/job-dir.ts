// Job directories: one per job under this node process's own directory, removed whatever happens.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * This node process's own directory under the node's work dir: its job directories go in it. A node
 * killed with SIGKILL cannot remove its job directories, and several nodes may share one work dir,
 * so a starting node removes the directories of node processes that are gone, and only those.
 */
export function processWorkDir(workDir: string, pid = process.pid): string {
  return join(workDir, `node-${pid}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the directories of node processes that are gone (what a kill -9 left); returns them. */
export async function removeLeftoverJobDirs(workDir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(workDir);
  } catch {
    return [];
  }
  const leftovers = entries
    .map((name) => ({ name, pid: Number(/^node-(\d+)$/.exec(name)?.[1]) }))
    .filter(({ pid }) => Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid))
    .map(({ name }) => join(workDir, name));
  await Promise.all(leftovers.map((dir) => rm(dir, { recursive: true, force: true })));
  return leftovers;
}

/**
 * A fresh directory for one job under the node's work dir. Job ids come from the caller, so only
 * file-name-safe characters of them are kept (a `/` would name a directory that does not exist).
 */
export async function makeJobDir(workDir: string, jobId: string, fallback: string): Promise<string> {
  await mkdir(workDir, { recursive: true });
  return mkdtemp(join(workDir, `${jobId.replace(/[^A-Za-z0-9_-]/g, '_') || fallback}-`));
}

/**
 * Runs `work` in a fresh job directory (makeJobDir) and removes the directory afterwards, whether the
 * work succeeded, failed or was cancelled.
 */
export async function withJobDir<T>(
  workDir: string,
  jobId: string,
  fallback: string,
  work: (jobDir: string) => Promise<T>,
): Promise<T> {
  const jobDir = await makeJobDir(workDir, jobId, fallback);
  try {
    return await work(jobDir);
  } finally {
    await rm(jobDir, { recursive: true, force: true });
  }
}
