import { Command, Flags } from '@oclif/core';

export default class ConfigCheckApi extends Command {
  static override description =
    'Check the environment the API (kino api) would start with: exit 0 when it would start, otherwise exit 1 naming every missing or invalid variable. ' +
    'It reads the environment exactly as `kino api` does (the same parse function).';
  static override examples = ['<%= config.bin %> config check api', '<%= config.bin %> config check api --json'];
  static override enableJsonFlag = false;
  static override flags = {
    json: Flags.boolean({
      description: 'Print {process, ok, problems, variables} (secrets redacted) on stdout, also when it fails.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigCheckApi);
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { apiConfigShape, parseApiConfig } = await import('../../../config.ts');
    const exitCode = reportConfigCheck(checkConfig('api', apiConfigShape, parseApiConfig), { json: flags.json });
    if (exitCode !== 0) this.exit(exitCode);
  }
}
