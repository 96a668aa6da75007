// Generates the TypeScript types of kino.proto into a directory (default src/generated), with the
// same loader options the runtime uses (proto/src/index.ts). The output is committed; a unit test
// regenerates it into a temporary directory and compares, so the types never drift from the proto.
// Usage: node scripts/gen.mjs [outDir]
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const protoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(protoDir, process.argv[2] ?? 'src/generated');
const require = createRequire(import.meta.url);
const generator = join(
  dirname(require.resolve('@grpc/proto-loader/package.json')),
  'build/bin/proto-loader-gen-types.js',
);

rmSync(outDir, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    generator,
    '--longs=Number',
    '--enums=String',
    '--defaults',
    '--oneofs',
    '--includeComments',
    '--grpcLib=@grpc/grpc-js',
    '--importFileExtension=.ts',
    '-O',
    outDir,
    'kino.proto',
  ],
  { cwd: protoDir, stdio: ['ignore', 'ignore', 'inherit'] },
);
