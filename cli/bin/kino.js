#!/usr/bin/env node
// The `kino` command: every process (api, orchestrator, node start, delivery) and every client
// command. Installed (the image, `npm install -g`), it runs the compiled JavaScript of `npm run
// build` with plain node. In a checkout (dev/ beside cli/), the same CLI runs from its TypeScript
// sources through dev/bin/kino.js, so no build step stands between a change and `npx kino`.
import { existsSync } from 'node:fs';

const sourceRunner = new URL('../../dev/bin/kino.js', import.meta.url);
if (existsSync(sourceRunner)) await import(sourceRunner.href);
else await (await import('./run.js')).runKino();
