// How tooling starts Kino from a checkout: from the TypeScript sources, never the compiled dist/
// (which only production and the production-path tests run). See dev/run-from-source.mjs.
import { join } from 'node:path';
import { repoRoot } from '@kino/infra';

/** `kino` from sources: `node <kinoBin> <command...>`. */
export const kinoBin = join(repoRoot, 'dev', 'bin', 'kino.js');

/** Node's arguments that run a TypeScript file from sources: `node ...runFromSourceArgs file.ts`. */
export const runFromSourceArgs = ['--import', join(repoRoot, 'dev', 'run-from-source.mjs')];
