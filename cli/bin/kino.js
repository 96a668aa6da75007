#!/usr/bin/env node
// The `kino` command: every process (api, orchestrator, node start, delivery) and every client
// command. It runs the compiled JavaScript of `npm run build` with plain node; in a checkout,
// dev/bin/kino.js runs the same CLI from its TypeScript sources.
const { Config, flush, handle, run, settings } = await import('@oclif/core');
// Commands are compiled: oclif is not to look for TypeScript sources or a transpiler, unless the
// source runner (dev/bin/kino.js) said otherwise.
settings.enableAutoTranspile ??= false;
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
