import { Command, Flags } from '@oclif/core';

export default class ConfigCheckIngest extends Command {
  static override description =
    'Check the environment an ingest would start with: exit 0 when it would start, otherwise exit 1 naming every missing or invalid variable. ' +
    'It reads the environment exactly as `kino ingest` does (the same parse function).';
  static override examples = ['<%= config.bin %> config check ingest', '<%= config.bin %> config check ingest --json'];
  static override enableJsonFlag = false;
  static override flags = {
    json: Flags.boolean({
      description: 'Print {process, ok, problems, variables} (secrets redacted) on stdout, also when it fails.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigCheckIngest);
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { ingestConfigShape, parseIngestConfig } = await import('../../../config.ts');
    const exitCode = reportConfigCheck(checkConfig('ingest', ingestConfigShape, parseIngestConfig), {
      json: flags.json,
    });
    if (exitCode !== 0) this.exit(exitCode);
  }
}
