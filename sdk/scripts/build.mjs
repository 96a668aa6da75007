// Builds the publishable package into sdk/dist: JavaScript bundled by esbuild (the contract's values
// and p-limit inlined, so the package has no dependencies), declarations by tsc (the contract's
// types emitted beside the SDK's and imported by relative paths), and a package.json whose exports
// point at them. In the monorepo, `@kino/sdk` still resolves to the TypeScript sources.
// Usage: node sdk/scripts/build.mjs (pack with `npm pack ./sdk/dist`).
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const distDir = join(sdkDir, 'dist');
const typesDir = join(distDir, 'types');
const source = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8'));

rmSync(distDir, { recursive: true, force: true });

await build({
  entryPoints: { index: join(sdkDir, 'src/index.ts'), node: join(sdkDir, 'src/node.ts') },
  outdir: distDir,
  bundle: true,
  splitting: true, // the Node entry shares the core's chunk rather than holding a second copy
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  conditions: ['kino-source'], // the contract's TypeScript sources, inlined
  target: 'es2022',
  external: ['node:*'],
  legalComments: 'none',
  logLevel: 'warning',
});

execFileSync(process.execPath, [join(sdkDir, '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(sdkDir, 'tsconfig.build.json')], {
  stdio: 'inherit',
});

// Declarations import `./x.ts` (the sources' style) and `@kino/proto/contract` (a workspace that
// is not published): point them at the emitted `.d.ts` files instead.
const contractIndex = join(typesDir, 'proto', 'src', 'contract', 'index.js');
function rewrite(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) rewrite(path);
    else if (name.endsWith('.d.ts')) {
      let contract = relative(dirname(path), contractIndex).split('\\').join('/');
      if (!contract.startsWith('.')) contract = `./${contract}`;
      const text = readFileSync(path, 'utf8')
        .replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2')
        .replace(/(['"])@kino\/proto\/contract\1/g, `$1${contract}$1`);
      writeFileSync(path, text);
    }
  }
}
rewrite(typesDir);

const manifest = {
  name: source.name,
  version: source.version,
  description: source.description,
  license: 'MIT',
  type: 'module',
  engines: { node: '>=20' },
  sideEffects: false,
  exports: {
    '.': { types: './types/sdk/src/index.d.ts', import: './index.js' },
    './node': { types: './types/sdk/src/node.d.ts', import: './node.js' },
    './package.json': './package.json',
  },
  types: './types/sdk/src/index.d.ts',
};
writeFileSync(join(distDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
copyFileSync(join(sdkDir, 'README.md'), join(distDir, 'README.md'));
console.log(`built ${relative(process.cwd(), distDir) || '.'}`);
