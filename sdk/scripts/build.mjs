// Builds the publishable package into sdk/package, for `import` (ESM, .js) and `require` (CommonJS,
// .cjs): JavaScript bundled by esbuild (the contract's values and p-limit inlined, so the package has
// no dependencies), declarations by tsc (the contract's types emitted beside the SDK's and imported
// by relative paths; a .d.ts tree for ESM and a .d.cts copy for CommonJS), and a package.json whose
// conditional exports point at them. In the monorepo, `@kino/sdk` still resolves to the TypeScript
// sources.
// Usage: node sdk/scripts/build.mjs (pack with `npm pack ./sdk/package`).
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = join(sdkDir, '..');
const distDir = join(sdkDir, 'package');
const typesDir = join(distDir, 'types');
const nodeEntry = join(sdkDir, 'src', 'node.ts');
const source = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8'));

rmSync(distDir, { recursive: true, force: true });

/**
 * The Node entry reaches the core only through `./index.ts`, kept external as the core's built file:
 * one copy of the core's classes per format, so `instanceof KinoError` holds whichever entry threw
 * (ESM and CommonJS are two copies, as in any dual package). Any other relative import from node.ts
 * would bundle a second copy, and fails the build.
 */
function coreExternal(coreFile) {
  return {
    name: 'core-external',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^\./ }, (args) => {
        if (args.importer !== nodeEntry) return undefined;
        if (args.path === './index.ts') return { path: coreFile, external: true };
        return {
          errors: [
            {
              text: `node.ts imports ${args.path}: import the core through './index.ts' (a second copy of it would be bundled)`,
            },
          ],
        };
      });
    },
  };
}

for (const [format, extension] of [
  ['esm', '.js'],
  ['cjs', '.cjs'],
]) {
  await build({
    // The browser entry bundles its few modules itself (the upload code, the progress meter, the
    // error classes): a page that sends a file need not load the API client.
    entryPoints: {
      index: join(sdkDir, 'src', 'index.ts'),
      node: nodeEntry,
      browser: join(sdkDir, 'src', 'browser.ts'),
    },
    outdir: distDir,
    outExtension: { '.js': extension },
    bundle: true,
    format,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    external: ['node:*'],
    plugins: [coreExternal(`./index${extension}`)],
    legalComments: 'none',
    logLevel: 'warning',
  });
}

// No request of the browser entry streams its body: a browser sends none over HTTP/1.1.
for (const file of ['browser.js', 'browser.cjs']) {
  if (readFileSync(join(distDir, file), 'utf8').includes('duplex'))
    throw new Error(`${file} streams a request body (duplex): the browser entry must not`);
}

execFileSync(
  process.execPath,
  [join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(sdkDir, 'tsconfig.build.json')],
  {
    stdio: 'inherit',
  },
);

// Declarations import `./x.ts` (the sources' style) and `@kino/proto/contract` (a workspace that
// is not published): point them at the emitted declarations instead. Each `.d.ts` (ESM, as the
// package is `type: module`) gets a `.d.cts` twin importing `.cjs` paths, which TypeScript reads as
// CommonJS: the types of `require('@kino/sdk')` then describe the CommonJS build.
function rewrite(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) rewrite(path);
    else if (name.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8');
      for (const [extension, declaration] of [
        ['.js', path],
        ['.cjs', path.replace(/\.d\.ts$/, '.d.cts')],
      ]) {
        let contract = relative(dirname(path), join(typesDir, 'proto', 'src', 'contract', `index${extension}`))
          .split('\\')
          .join('/');
        if (!contract.startsWith('.')) contract = `./${contract}`;
        const rewritten = text
          .replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, `$1$2$3${extension}$2`)
          .replace(/(['"])@kino\/proto\/contract\1/g, `$1${contract}$1`);
        writeFileSync(declaration, rewritten);
      }
    }
  }
}
rewrite(typesDir);

const entry = (name) => ({
  import: { types: `./types/sdk/src/${name}.d.ts`, default: `./${name}.js` },
  require: { types: `./types/sdk/src/${name}.d.cts`, default: `./${name}.cjs` },
});
const manifest = {
  name: source.name,
  version: source.version,
  description: source.description,
  license: source.license,
  type: 'module',
  engines: { node: '>=22' },
  sideEffects: false,
  exports: {
    '.': entry('index'),
    './node': entry('node'),
    './browser': entry('browser'),
    './package.json': './package.json',
  },
  // For tools that predate `exports` (TypeScript's `moduleResolution: node`, old bundlers).
  main: './index.cjs',
  module: './index.js',
  types: './types/sdk/src/index.d.cts',
};
writeFileSync(join(distDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
// TypeScript's `moduleResolution: node` ignores `exports`: it finds `@kino/sdk/node` as node.js at
// the root, and its types as node.d.ts beside it.
writeFileSync(join(distDir, 'node.d.ts'), "export * from './types/sdk/src/node.cjs';\n");
writeFileSync(join(distDir, 'browser.d.ts'), "export * from './types/sdk/src/browser.cjs';\n");
copyFileSync(join(sdkDir, 'README.md'), join(distDir, 'README.md'));
copyFileSync(join(repoDir, 'LICENSE'), join(distDir, 'LICENSE'));
copyFileSync(join(repoDir, 'CHANGELOG.md'), join(distDir, 'CHANGELOG.md'));
console.log(`built ${relative(process.cwd(), distDir) || '.'}`);
