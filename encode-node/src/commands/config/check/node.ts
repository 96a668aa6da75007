import { Command, Flags } from '@oclif/core';

export default class ConfigCheckNode extends Command {
  static override description =
    'Check the environment an encode node would start with: exit 0 when it would start, otherwise exit 1 naming every missing or invalid variable. ' +
    'It reads the environment exactly as `kino node start` does (the same parse function), without its flags.';
  static override examples = ['<%= config.bin %> config check node', '<%= config.bin %> config check node --json'];
  static override enableJsonFlag = false;
  static override flags = {
    json: Flags.boolean({
      description: 'Print {process, ok, problems, variables} (secrets redacted) on stdout, also when it fails.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigCheckNode);
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { nodeConfigShape, parseNodeConfig } = await import('../../../config.ts');
    const exitCode = reportConfigCheck(checkConfig('node', nodeConfigShape, parseNodeConfig), { json: flags.json });
    if (exitCode !== 0) this.exit(exitCode);
  }
}
