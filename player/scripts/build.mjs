// Builds player/dist/kino-player.js: the element and hls.js in one minified ES module, which the
// delivery host serves to its embed and watch pages and applications import (`@kino/player`).
//
// hls.js is built from the TypeScript sources its package ships, with its own feature switches (the
// `__USE_*__` constants its rollup build defines), because the prebuilt full hls.min.js alone is
// about 189 KB gzipped, over the player's 150 KB budget (docs/decisions/player.md#size): subtitles
// and alternate audio stay (captions, and added audio tracks play as alternate renditions); DRM,
// CMCD, content steering, interstitials, I-frame playlists, variable substitution and MPEG-TS's
// advanced codecs go (Kino serves none of them).
// Usage: node player/scripts/build.mjs
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const playerDir = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the package's build goes (its exports name it). */
export const bundlePath = join(playerDir, 'dist', 'kino-player.js');
const require = createRequire(import.meta.url);
const hlsPackage = require('hls.js/package.json');
const playerPackage = require('../package.json');
const hlsEntry = join(dirname(require.resolve('hls.js/package.json')), 'src', 'exports-default.ts');

/** hls.js's build-time switches, as its rollup config names them. */
const hlsFeatures = {
  __USE_SUBTITLES__: true,
  __USE_ALT_AUDIO__: true,
  __USE_EME_DRM__: false,
  __USE_CMCD__: false,
  __USE_CONTENT_STEERING__: false,
  __USE_VARIABLE_SUBSTITUTION__: false,
  __USE_M2TS_ADVANCED_CODECS__: false,
  __USE_MEDIA_CAPABILITIES__: false,
  __USE_INTERSTITIALS__: false,
  __USE_IFRAMES__: false,
  // No worker bundle is injected: Kino's fMP4 segments need no transmuxing, so hls.js's main thread does.
  __IN_WORKER__: false,
};

/** `import Hls from 'hls.js'` resolves to the sources (the package's exports name only its dist files). */
const hlsFromSources = {
  name: 'hls.js-from-sources',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^hls\.js$/ }, () => ({ path: hlsEntry }));
  },
};

/** Builds the bundle into `outfile`. */
export async function buildPlayer(outfile = bundlePath) {
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(playerDir, 'src', 'kino-player.ts')],
    outfile,
    bundle: true,
    minify: true,
    format: 'esm',
    // Native private fields and class statics: every browser with MediaSource in ES modules has them.
    target: 'es2022',
    legalComments: 'eof',
    plugins: [hlsFromSources],
    define: {
      __VERSION__: JSON.stringify(hlsPackage.version),
      // The version every beacon batch names (src/view-report.ts).
      __KINO_PLAYER_VERSION__: JSON.stringify(playerPackage.version),
      ...Object.fromEntries(Object.entries(hlsFeatures).map(([name, on]) => [name, String(on)])),
    },
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildPlayer();
