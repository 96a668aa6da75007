// How tooling starts `kino` in a checkout: from the TypeScript sources through tsx, never from the
// compiled dist/ (which production runs: deploy/assemble-runtime.mjs, the production-path test).
import { join } from 'node:path';
import { repoRoot } from '@kino/infra';

/** `kino` from sources: `node <kinoBin> <command...>`. */
export const kinoBin = join(repoRoot, 'dev', 'bin', 'kino.js');
