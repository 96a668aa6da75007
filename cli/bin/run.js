// Runs the `kino` CLI (oclif) with the command line of this process.
import { Config, flush, handle, run, settings } from '@oclif/core';

export async function runKino() {
  const config = await loadKinoConfig();
  await run(process.argv.slice(2), config).then(
    () => flush(),
    (error) => handle(error),
  );
}

/** The CLI's oclif configuration: its commands and those of the packages it loads as plugins. */
export async function loadKinoConfig() {
  // oclif is not to look for a transpiler of its own: installed, the commands are compiled; in a
  // checkout, dev/bin/kino.js has registered tsx (oclif registering its own doubled start-up CPU).
  settings.enableAutoTranspile = false;
  // `kino dev` and `kino analytics-store` are dev tooling: @kino/dev, an oclif devPlugin. oclif loads
  // devPlugins only when NODE_ENV is development or test. A checkout counts as development unless
  // NODE_ENV says otherwise; the image sets production, so it has no dev commands. Only the loading
  // of the commands sees that value: the command itself, and what it starts, get NODE_ENV as it was.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = nodeEnv ?? 'development';
  try {
    return await Config.load(import.meta.url);
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
  }
}
