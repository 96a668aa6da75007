#!/usr/bin/env node
// commands.test.ts's child: what `kino <id> --help` prints, for every id on its command line, as one
// JSON object (id → output). One process answers them all: a process per command started tsx and
// oclif some 75 times, 80 s of both cores in the unit phase. Each answer goes through oclif's own
// `run`, as the binary's does (dev/bin/kino.js, cli/bin/run.js), so a command file that does not
// load still fails its help.
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { run } = await import('@oclif/core');
const { loadKinoConfig } = await import('../bin/run.js');

const config = await loadKinoConfig();
const write = process.stdout.write.bind(process.stdout);
const pages = {};
for (const id of process.argv.slice(2)) {
  let page = '';
  process.stdout.write = (chunk) => {
    page += String(chunk);
    return true;
  };
  try {
    await run([...id.split(' '), '--help'], config);
  } finally {
    process.stdout.write = write;
  }
  pages[id] = page;
}
write(JSON.stringify(pages));
