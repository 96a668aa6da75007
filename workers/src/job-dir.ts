import { mkdir, mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A fresh directory for one job under the node's work dir. Job ids come from the caller, so only
 * file-name-safe characters of them are kept (a `/` would name a directory that does not exist).
 */
export async function makeJobDir(workDir: string, jobId: string, fallback: string): Promise<string> {
  await mkdir(workDir, { recursive: true });
  return mkdtemp(join(workDir, `${jobId.replace(/[^A-Za-z0-9_-]/g, '_') || fallback}-`));
}
