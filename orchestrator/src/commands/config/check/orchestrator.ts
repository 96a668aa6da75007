import { Command, Flags } from '@oclif/core';

export default class ConfigCheckOrchestrator extends Command {
  static override description =
    'Check the environment the orchestrator would start with: exit 0 when it would start, otherwise exit 1 naming every missing or invalid variable. ' +
    'It reads the environment exactly as `kino orchestrator` does (the same parse function).';
  static override examples = [
    '<%= config.bin %> config check orchestrator',
    '<%= config.bin %> config check orchestrator --json',
  ];
  static override enableJsonFlag = false;
  static override flags = {
    json: Flags.boolean({
      description: 'Print {process, ok, problems, variables} (secrets redacted) on stdout, also when it fails.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigCheckOrchestrator);
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { orchestratorConfigShape, parseOrchestratorConfig } = await import('../../../config.ts');
    const exitCode = reportConfigCheck(checkConfig('orchestrator', orchestratorConfigShape, parseOrchestratorConfig), {
      json: flags.json,
    });
    if (exitCode !== 0) this.exit(exitCode);
  }
}
