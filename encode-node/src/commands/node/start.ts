import { Command, Flags } from '@oclif/core';

export default class NodeStart extends Command {
  static override description = [
    'Start an encode node: a gRPC EncodeService that runs ffmpeg, inside the one connection it opens to the',
    'control plane (it listens on no port but its metrics). It holds no storage credentials (each job brings',
    'presigned URLs). SIGTERM drains it: no new jobs, running encodes finish, it deregisters and exits 0.',
    'Prints {"nodeId","address","metricsAddress"} as one JSON line when ready (address: the relay it is called through).',
  ].join('\n');

  static override examples = [
    '<%= config.bin %> node start --registry https://registry.example.com:7090 --enroll kino_enroll_… --slots 2',
    '<%= config.bin %> node start --control-plane 127.0.0.1:7090 --token $NODE_TOKEN --slots 2',
  ];
  static override enableJsonFlag = false;

  static override flags = {
    registry: Flags.string({
      description:
        'the node registry: https://HOST:PORT for a farm with TLS (the node enrolls), or HOST:PORT on the shared token (env KINO_CONTROL_PLANE)',
      aliases: ['control-plane'],
    }),
    enroll: Flags.string({
      description:
        'a one-time enrollment token (kino admin nodes enroll), traded at the first start for the node’s own credential (env NODE_ENROLL_TOKEN)',
    }),
    'state-dir': Flags.string({
      description: 'where the node keeps its credential (env NODE_STATE_DIR, default ~/.local/state/kino-node)',
    }),
    token: Flags.string({ description: 'the shared farm token, for a registry on plaintext (env NODE_TOKEN)' }),
    slots: Flags.integer({ description: 'encodes run at once (env NODE_SLOTS, default 1)', min: 1 }),
    host: Flags.string({ description: 'interface of the metrics server (env NODE_HOST, default 127.0.0.1)' }),
    labels: Flags.string({
      description:
        'labels jobs may ask for (nodeLabels), comma-separated: name or name=value (env NODE_LABELS=gpu,acme)',
    }),
    label: Flags.string({
      description: 'one label, name or name=value, repeatable (adds to --labels)',
      multiple: true,
    }),
    'work-dir': Flags.string({ description: 'where job directories go (env NODE_WORK_DIR, default the temp dir)' }),
    threads: Flags.integer({ description: 'ffmpeg threads per encode, 0 automatic (env NODE_FFMPEG_THREADS)', min: 0 }),
    'metrics-port': Flags.integer({
      description: 'port of GET /metrics on the host, 0 for any free one (env NODE_METRICS_PORT, default 0)',
      min: 0,
    }),
  };

  async run(): Promise<void> {
    const { exitOnConfigError, runProcess } = await import('@kino/infra');
    const { createNodeLogger, nodeOptionsFromConfig, parseNodeConfig, startEncodeNode } =
      await import('../../index.ts');
    const { flags } = await this.parse(NodeStart);
    // Flags win over the environment; both go through the one validated config of the process.
    const fromFlags: Record<string, string | undefined> = {
      KINO_CONTROL_PLANE: flags.registry,
      NODE_ENROLL_TOKEN: flags.enroll,
      NODE_STATE_DIR: flags['state-dir'],
      NODE_TOKEN: flags.token,
      NODE_SLOTS: flags.slots?.toString(),
      NODE_HOST: flags.host,
      NODE_LABELS:
        flags.labels !== undefined || flags.label !== undefined
          ? [flags.labels, ...(flags.label ?? [])].filter((part) => part !== undefined).join(',')
          : undefined,
      NODE_WORK_DIR: flags['work-dir'],
      NODE_FFMPEG_THREADS: flags.threads?.toString(),
      NODE_METRICS_PORT: flags['metrics-port']?.toString(),
    };
    const defined = Object.fromEntries(Object.entries(fromFlags).filter(([, v]) => v !== undefined));
    // The same parse as `kino config check node` (which reads the environment only).
    const config = exitOnConfigError(() => parseNodeConfig({ ...process.env, ...defined }));
    const logger = createNodeLogger(config.LOG_LEVEL);

    await runProcess({
      name: 'encode node',
      logger,
      start: async () => {
        const node = await startEncodeNode({ ...nodeOptionsFromConfig(config), logger });
        process.stdout.write(
          `${JSON.stringify({ nodeId: node.nodeId, address: node.address, metricsAddress: node.metricsAddress })}\n`,
        );
        // Stopping a node is draining it: no new jobs, running encodes finish, then it deregisters.
        // A revoked node ends on its own, failed (exit 1): restarting it cannot help.
        return {
          stop: () => node.drain(),
          finished: node.revoked.then((error) => {
            throw error;
          }),
        };
      },
    });
  }
}
