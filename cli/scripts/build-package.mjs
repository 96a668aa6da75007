// Builds the publishable `kino` CLI into cli/package/: the developers' commands (videos, playback,
// webhooks, analytics, nodes, login, version) bundled by esbuild with the SDK and the contract
// inlined, so the package depends only on what the npm registry has (oclif, cli-progress). The
// processes (api, orchestrator, node, delivery) and the operators' admin commands are not in it:
// they come with the image (the process packages are oclif plugins of the CLI there).
// Usage: node cli/scripts/build-package.mjs, then `npm pack ./cli/package`;
// `npm install -g kino-cli-<version>.tgz` installs `kino` on any machine with Node.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cliDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = join(cliDir, '..');
const packageDir = join(cliDir, 'package');
const source = JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8'));

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? files(path)
      : name.endsWith('.ts') && !name.endsWith('.test.ts')
        ? [path]
        : [];
  });
}

rmSync(packageDir, { recursive: true, force: true });
// What the published package depends on: the CLI's registry dependencies, not the workspaces
// (bundled, or absent: the process plugins).
const dependencies = Object.fromEntries(
  Object.entries(source.dependencies).filter(([name]) => !name.startsWith('@kino/')),
);

await build({
  entryPoints: files(join(cliDir, 'src', 'commands')),
  outbase: join(cliDir, 'src'),
  outdir: join(packageDir, 'dist'),
  chunkNames: 'chunks/[name]-[hash]', // beside commands/, where oclif would take them for commands
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: Object.keys(dependencies),
  legalComments: 'none',
  logLevel: 'warning',
});

const commandDirs = new Set(readdirSync(join(cliDir, 'src', 'commands')));
mkdirSync(join(packageDir, 'bin'));
// bin/kino.js finds no dev/ beside the package and runs the compiled commands.
for (const file of ['kino.js', 'run.js']) copyFileSync(join(cliDir, 'bin', file), join(packageDir, 'bin', file));
const oclif = { ...source.oclif };
delete oclif.devPlugins; // @kino/dev: the checkout's
const manifest = {
  name: source.name,
  version: source.version,
  description:
    'The Kino command line: upload, process, list, wait for, share and sign videos, webhooks and usage analytics on a Kino API.',
  license: source.license,
  type: 'module',
  engines: { node: '>=22' },
  bin: source.bin,
  files: ['bin', 'dist'],
  dependencies,
  oclif: {
    ...oclif,
    commands: './dist/commands',
    // Only the registry's plugins: the process packages are the image's.
    plugins: oclif.plugins.filter((name) => !name.startsWith('@kino/')),
    // The topics of the commands it has.
    topics: Object.fromEntries(Object.entries(oclif.topics).filter(([topic]) => commandDirs.has(topic.split(':')[0]))),
  },
};
writeFileSync(join(packageDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
for (const file of ['README.md', 'LICENSE', 'CHANGELOG.md']) {
  copyFileSync(file === 'README.md' ? join(cliDir, 'README.md') : join(repoDir, file), join(packageDir, file));
}
console.log(`built ${relative(process.cwd(), packageDir) || '.'}`);
