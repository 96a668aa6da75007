// The workflow code a Temporal worker runs is one webpack bundle of the workflows and what they
// import. Bundling it costs about 3 s of CPU at every orchestrator start (tests start dozens). The
// bundle is a function of the files it holds and of the bundler, so it is kept in a cache and
// reused while each of those files is unchanged: their hashes are checked at every start, and any
// difference (an edited workflow, an upgraded SDK) bundles anew. A cache that cannot be read or
// written only costs the bundling.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundle } from '@temporalio/worker';
import { repoRoot, type Logger } from '@kino/infra';

/** Where bundles are kept between starts, beside the other tools' caches. */
export const workflowBundleCacheDir = join(repoRoot, 'node_modules', '.cache', 'kino', 'workflow-bundles');

interface CachedBundle {
  /** Every file webpack put in the bundle, with the SHA-256 of its content when bundled. */
  inputs: Record<string, string>;
  code: string;
}

const bundlerVersion: string = JSON.parse(
  readFileSync(new URL(import.meta.resolve('@temporalio/worker/package.json')), 'utf8'),
).version;

function sha256(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

function unchanged(inputs: Record<string, string>): boolean {
  for (const [path, hash] of Object.entries(inputs)) {
    try {
      if (sha256(readFileSync(path)) !== hash) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The bundle of the workflows at `workflowsPath`: from `cacheDir` when still current, else built (and cached). */
export async function loadWorkflowBundle(
  workflowsPath: string,
  { cacheDir, logger }: { cacheDir: string; logger: Logger },
): Promise<WorkflowBundle> {
  const cacheFile = join(cacheDir, `${sha256(`${workflowsPath}\n${bundlerVersion}`).slice(0, 16)}.json`);
  try {
    const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as CachedBundle;
    if (unchanged(cached.inputs)) return { code: cached.code };
  } catch {
    // No cache yet, or one this process cannot read: bundle.
  }

  const { code } = await bundleWorkflowCode({ workflowsPath, logger: temporalLogger(logger) });
  try {
    // Webpack names each module by its path from the working directory (`/***/ "./proto/src/...":`);
    // generated modules (`?31ff`) have no file and follow from the files that import them.
    const inputs: Record<string, string> = {};
    for (const [, id] of code.matchAll(/^\/\*\*\*\/ "(\.{1,2}\/[^"]+)"/gm)) {
      const path = resolve(id!);
      inputs[path] = sha256(readFileSync(path));
    }
    mkdirSync(cacheDir, { recursive: true });
    // Written whole, then renamed: orchestrators starting together never read half a bundle.
    const partial = `${cacheFile}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify({ inputs, code } satisfies CachedBundle));
    renameSync(partial, cacheFile);
  } catch (error) {
    logger.debug({ err: error, cacheDir }, 'workflow bundle not cached');
  }
  return { code };
}

/** The bundler's warnings and errors, in the process's log (its per-asset lines are left out). */
function temporalLogger(logger: Logger): DefaultLogger {
  const log = logger.child({ component: 'workflow-bundle' });
  return new DefaultLogger('WARN', ({ level, message, meta }) =>
    level === 'ERROR' ? log.error(meta ?? {}, message) : log.warn(meta ?? {}, message),
  );
}
