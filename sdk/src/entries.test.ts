// The core entry runs where there is no Node: bundled for a browser, nothing it reaches imports a
// `node:` module (esbuild refuses to resolve one for that platform). The Node entry may.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { build } from 'esbuild';

const src = import.meta.dirname;

async function bundleForBrowser(entry: string) {
  return build({
    entryPoints: [join(src, entry)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
}

describe('entry points', () => {
  it('the core (@kino/sdk) bundles for a browser: no node: module anywhere it reaches', async () => {
    const result = await bundleForBrowser('index.ts');
    assert.deepEqual(result.errors, []);
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(!inputs.some((input) => input.endsWith('sdk/src/node.ts')), 'the core does not reach the Node entry');
    assert.ok(inputs.some((input) => input.endsWith('sdk/src/resources/uploads.ts')));
  });

  it('the browser entry (@kino/sdk/browser) bundles the upload code alone: no API client, no streamed request body', async () => {
    const result = await bundleForBrowser('browser.ts');
    assert.deepEqual(result.errors, []);
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(inputs.some((input) => input.endsWith('sdk/src/uploads/direct.ts')));
    assert.ok(
      !inputs.some((input) => input.endsWith('sdk/src/http.ts') || input.endsWith('sdk/src/client.ts')),
      inputs.join(', '),
    );
    assert.ok(!result.outputFiles[0]!.text.includes('duplex'), 'no request of the browser entry streams its body');
  });

  it('the Node entry (@kino/sdk/node) does not bundle for a browser: the check can tell', async () => {
    await assert.rejects(bundleForBrowser('node.ts'), /node:/);
  });
});
