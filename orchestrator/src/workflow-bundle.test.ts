import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@kino/infra';
import { workflowsPath } from './worker.ts';
import { loadWorkflowBundle } from './workflow-bundle.ts';

const logger = createLogger('workflow-bundle-test', 'warn');
let cacheDir: string;

beforeAll(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'kino-workflow-bundles-'));
});
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

function cacheFile(): string {
  const [file, ...others] = readdirSync(cacheDir);
  assert.equal(others.length, 0, 'one cached bundle');
  return join(cacheDir, file!);
}

test(
  'a bundle is built once and reused while every file in it is unchanged; a changed file bundles anew',
  { timeout: 120_000 },
  async () => {
    const built = await loadWorkflowBundle(workflowsPath, { cacheDir, logger });
    assert.match(built.code, /processVideo/);
    const cached = JSON.parse(readFileSync(cacheFile(), 'utf8')) as { inputs: Record<string, string>; code: string };
    assert.ok(cached.inputs[workflowsPath], 'the workflows index is among the inputs');
    assert.ok(
      Object.keys(cached.inputs).some((path) => path.includes('/proto/src/contract/')),
      'so are the contract modules it imports',
    );
    assert.ok(
      Object.keys(cached.inputs).some((path) => path.includes('/@temporalio/workflow/')),
      'and the SDK it runs on',
    );

    // What the cache holds is what the next start runs: a marked copy comes back as it is.
    writeFileSync(cacheFile(), JSON.stringify({ ...cached, code: `${cached.code}\n// from the cache` }));
    assert.match((await loadWorkflowBundle(workflowsPath, { cacheDir, logger })).code, /\/\/ from the cache$/);

    // A file whose content no longer matches (an edited workflow) is bundled again, and cached again.
    const contract = Object.keys(cached.inputs).find((path) => path.endsWith('/proto/src/contract/hls.ts'))!;
    writeFileSync(
      cacheFile(),
      JSON.stringify({
        inputs: { ...cached.inputs, [contract]: 'a hash of other content' },
        code: `${cached.code}\n// from the cache`,
      }),
    );
    const rebuilt = await loadWorkflowBundle(workflowsPath, { cacheDir, logger });
    assert.doesNotMatch(rebuilt.code, /from the cache/);
    assert.equal(
      (JSON.parse(readFileSync(cacheFile(), 'utf8')) as { inputs: Record<string, string> }).inputs[contract],
      cached.inputs[contract],
    );
  },
);
