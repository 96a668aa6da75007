#!/usr/bin/env node
// Kino runs its TypeScript sources through tsx: no build step between a change and `kino`.
// The AWS SDK warns on every start that it will want Node 22 in 2027; Node 20 is supported until then.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { register } = await import('tsx/esm/api');
register();
const { Config, flush, handle, run, settings } = await import('@oclif/core');
// tsx (above) already loads the .ts command files; oclif is not to look for a transpiler of its own.
settings.enableAutoTranspile = false;
// `kino dev` and `kino analytics-store` are dev tooling: @kino/dev, an oclif devPlugin. oclif loads
// devPlugins only when NODE_ENV is development or test. A checkout counts as development unless
// NODE_ENV says otherwise; the image sets production, so it has no dev commands. Only the loading
// of the commands sees that value: the command itself, and what it starts, get NODE_ENV as it was.
const nodeEnv = process.env.NODE_ENV;
process.env.NODE_ENV = nodeEnv ?? 'development';
let config;
try {
  config = await Config.load(import.meta.url);
} finally {
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
}
await run(process.argv.slice(2), config).then(
  () => flush(),
  (error) => handle(error),
);
