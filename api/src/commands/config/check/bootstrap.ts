import { Command, Flags } from '@oclif/core';

export default class ConfigCheckBootstrap extends Command {
  static override description =
    'Check the environment `kino admin bootstrap` would run with: exit 0 when it would run, otherwise exit 1 naming every missing or invalid variable. ' +
    'It reads the environment exactly as `kino admin bootstrap` does (the same parse function).';
  static override examples = [
    '<%= config.bin %> config check bootstrap',
    '<%= config.bin %> config check bootstrap --json',
  ];
  static override enableJsonFlag = false;
  static override flags = {
    json: Flags.boolean({
      description: 'Print {process, ok, problems, variables} (secrets redacted) on stdout, also when it fails.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigCheckBootstrap);
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { bootstrapConfigShape, parseBootstrapConfig } = await import('../../../admin/bootstrap.ts');
    const exitCode = reportConfigCheck(checkConfig('bootstrap', bootstrapConfigShape, parseBootstrapConfig), {
      json: flags.json,
    });
    if (exitCode !== 0) this.exit(exitCode);
  }
}
