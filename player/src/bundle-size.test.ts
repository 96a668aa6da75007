// The player's size budget (issue 58): the built bundle, hls.js included, at most 150 KB gzipped,
// measured on what the build writes, compressed as a server's gzip would send it.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
// @ts-expect-error: the build script is plain JavaScript, run by Node as it is.
import { buildPlayer } from '../scripts/build.mjs';

const budgetBytes = 150 * 1024;

test('the built bundle is at most 150 KB gzipped, and holds hls.js with subtitles and alternate audio', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kino-player-build-'));
  try {
    const outfile = join(dir, 'kino-player.js');
    await (buildPlayer as (outfile: string) => Promise<void>)(outfile);
    const bundle = await readFile(outfile);
    const gzipped = gzipSync(bundle).length;
    assert.ok(gzipped <= budgetBytes, `${gzipped} bytes gzipped, over the ${budgetBytes} budget`);
    const text = bundle.toString('utf8');
    assert.match(text, /customElements\.define\("kino-player"/);
    // hls.js's default config names each controller, or void 0 for one switched off: the player's
    // are in, DRM's is out.
    for (const controller of ['subtitleStreamController', 'audioStreamController', 'audioTrackController'])
      assert.match(text, new RegExp(`${controller}:[A-Za-z_$]`), `${controller} is switched off`);
    assert.match(text, /emeController:void 0/);
    console.log(`kino-player.js: ${bundle.length} bytes, ${gzipped} gzipped`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
