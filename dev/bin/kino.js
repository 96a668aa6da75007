#!/usr/bin/env node
// `kino` run from a checkout's TypeScript sources (`npm run dev`, the tests): the same CLI as
// cli/bin/kino.js, which runs the compiled dist/ output in production.
import '../run-from-source.mjs';
import { settings } from '@oclif/core';

// oclif finds each plugin's commands in src/commands instead of dist/commands (it maps them with
// the package's tsconfig.json rootDir and outDir); tsx, registered above, compiles them.
settings.enableAutoTranspile = true;
await import('../../cli/bin/kino.js');
