#!/usr/bin/env node
// Kino runs its TypeScript sources through tsx: no build step between a change and `kino`.
// The AWS SDK warns on every start that it will want Node 22 in 2027; Node 20 is supported until then.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { register } = await import('tsx/esm/api');
register();
const { execute } = await import('@oclif/core');
await execute({ dir: import.meta.url });
