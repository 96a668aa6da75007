import { Command, Flags } from '@oclif/core';

export default class ConfigCheckDelivery extends Command {
  static override description =
    'Check the environment a delivery node would start with: exit 0 when it would start, otherwise exit 1 naming every missing or invalid variable. ' +
    'It reads the environment exactly as `kino delivery` does (the same parse function).';
  static override examples = [
    '<%= config.bin %> config check delivery',
    '<%= config.bin %> config check delivery --json',
  ];
  static override enableJsonFlag = false;
  static override flags = {
    json: Flags.boolean({
      description: 'Print {process, ok, problems, variables} (secrets redacted) on stdout, also when it fails.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigCheckDelivery);
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { deliveryConfigShape, parseDeliveryConfig } = await import('../../../config.ts');
    const exitCode = reportConfigCheck(checkConfig('delivery', deliveryConfigShape, parseDeliveryConfig), {
      json: flags.json,
    });
    if (exitCode !== 0) this.exit(exitCode);
  }
}
