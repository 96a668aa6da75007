#!/usr/bin/env node
// `kino` from a checkout's TypeScript sources (`npm run dev`, `npx kino`, the tests): no build step
// between a change and a run. The workspace manifests name the sources (exports, oclif commands in
// src/commands); the installed form (deploy/assemble-runtime.mjs, the CLI's package) names the
// compiled dist/ and runs cli/bin/run.js with plain node.
//
// Node runs the sources itself where it can strip types (Node 22.18 and 23.6 on; the pinned 24 that
// `npm test` and `npm run dev` use): the sources keep to erasable syntax for it (`erasableSyntaxOnly`),
// and its compile cache keeps a start from parsing them again. A farm's process started through tsx
// spent twice the CPU loading its modules (its loader hooks run off-thread for every import): about
// 0.6 CPU-s more for each of the hundreds of processes a test run starts. An older Node gets tsx.
import module from 'node:module';

// The AWS SDK's notice on a Node older than 22 (a checkout's PATH may have one; npm test runs on 24).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
if (process.features.typescript) {
  module.enableCompileCache?.();
} else {
  const { register } = await import('tsx/esm/api');
  register();
}
const { runKino } = await import('../../cli/bin/run.js');
await runKino();
