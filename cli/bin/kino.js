#!/usr/bin/env node
// Kino runs its TypeScript sources through tsx: no build step between a change and `kino`.
process.env.AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING ??= '1';
const { register } = await import('tsx/esm/api');
register();
const { execute } = await import('@oclif/core');
await execute({ dir: import.meta.url });
