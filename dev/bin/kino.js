#!/usr/bin/env node
// `kino` from a checkout's TypeScript sources (`npm run dev`, `npx kino`, the tests), through tsx:
// no build step between a change and a run. The workspace manifests name the sources (exports,
// oclif commands in src/commands); the installed form (deploy/assemble-runtime.mjs, the CLI's
// package) names the compiled dist/ and runs cli/bin/run.js with plain node.
import { register } from 'tsx/esm/api';

// The AWS SDK's notice on a Node older than 22 (a checkout's PATH may have one; npm test runs on 24).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { runKino } = await import('../../cli/bin/run.js');
await runKino();
