import { Command, Flags } from '@oclif/core';

export default class Dev extends Command {
  static override description = `Run the whole farm on this machine, on loopback, until Ctrl-C.

Starts PostgreSQL, the Temporal dev server and SeaweedFS (S3) with their state under .kino/, then
the API, the orchestrator (node registry + Temporal worker), encode nodes, delivery and analytics
as child processes. On first start it creates a dev organization, environment and svc_test_ key
and writes .kino/dev.json; a restart re-uses them and keeps every video. Logs: .kino/logs/.`;

  static override examples = [
    '<%= config.bin %> dev',
    'KINO_DEV_PORT_BASE=20000 KINO_DEV_DIR=/tmp/kino2 <%= config.bin %> dev   # a second stack: API on 20080',
  ];

  // A long-running command: its output is the summary, not JSON.
  static override enableJsonFlag = false;

  static override flags = {
    dir: Flags.string({ description: 'state directory (env KINO_DEV_DIR; default .kino at the repo root)' }),
    'port-base': Flags.integer({
      description:
        'port base (env KINO_DEV_PORT_BASE; default 7000): API base+80, delivery +81, registry +90, nodes +101.., S3 +333, PostgreSQL +432, Temporal +10233',
      min: 1,
      max: 55_000,
    }),
    nodes: Flags.integer({ description: 'encode nodes to start (env KINO_DEV_NODES; default 2)', min: 1, max: 16 }),
    slots: Flags.integer({
      description: 'slots per encode node (env KINO_DEV_NODE_SLOTS; default: the cores shared among the nodes)',
      min: 1,
    }),
  };

  async run(): Promise<void> {
    const { runDevStack } = await import('../stack/index.ts');
    const { flags } = await this.parse(Dev);
    const code = await runDevStack({
      dir: flags.dir,
      portBase: flags['port-base'],
      nodes: flags.nodes,
      slots: flags.slots,
    });
    if (code !== 0) this.exit(code);
  }
}
