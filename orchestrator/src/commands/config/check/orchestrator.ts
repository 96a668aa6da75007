import { Command, Flags } from '@oclif/core';

export default class ConfigCheckOrchestrator extends Command {
  static override description =
    'Check the environment the orchestrator would start with: exit 0 when it would start, otherwise exit 1 naming every missing or invalid variable. ' +
    'It reads the environment exactly as `kino orchestrator` does (the same parse function), and checks the operator’s own ' +
    'registry certificate (REGISTRY_TLS_CERT_FILE/KEY_FILE) as its start does: chain up to its root, matching key, names.';
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
    const { checkConfig, parseConfig, reportConfigCheck } = await import('@kino/infra');
    const { orchestratorConfigShape, parseOrchestratorConfig, operatorCertificateFiles, registryTlsNames } =
      await import('../../../config.ts');
    const { readOperatorCertificate } = await import('../../../registry/farm-tls.ts');
    const check = checkConfig('orchestrator', orchestratorConfigShape, parseOrchestratorConfig);
    // The certificate files are checked whatever else is wrong: only the settings they need are read.
    const { REGISTRY_HOST, REGISTRY_TLS_NAMES, REGISTRY_TLS_CERT_FILE, REGISTRY_TLS_KEY_FILE } =
      orchestratorConfigShape;
    const tlsShape = { REGISTRY_HOST, REGISTRY_TLS_NAMES, REGISTRY_TLS_CERT_FILE, REGISTRY_TLS_KEY_FILE };
    const tlsConfig = (() => {
      try {
        return parseConfig(tlsShape, process.env);
      } catch {
        return undefined; // named among the problems already
      }
    })();
    const files = tlsConfig && operatorCertificateFiles(tlsConfig);
    if (tlsConfig && files)
      await readOperatorCertificate(files, registryTlsNames(tlsConfig)).catch((error: unknown) => {
        check.ok = false;
        check.problems.push(`REGISTRY_TLS_CERT_FILE: ${(error as Error).message}`);
      });
    const exitCode = reportConfigCheck(check, { json: flags.json });
    if (exitCode !== 0) this.exit(exitCode);
  }
}
