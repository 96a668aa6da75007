// How tooling starts `kino` in a checkout: from the TypeScript sources (dev/bin/kino.js: Node's own
// type stripping, or tsx on a Node without it), never from the compiled dist/ (which production
// runs: deploy/assemble-runtime.mjs, the production-path test).
import { join } from 'node:path';
import { repoRoot } from '@kino/infra';

/** `kino` from sources: `node <kinoBin> <command...>`. */
export const kinoBin = join(repoRoot, 'dev', 'bin', 'kino.js');

/** What `node` needs before a TypeScript entry point of ours: nothing where Node strips types itself. */
export const typeScriptEntryArgs: string[] = process.features.typescript ? [] : ['--import', 'tsx'];
