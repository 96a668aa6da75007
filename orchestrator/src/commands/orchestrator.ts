import { Command } from '@oclif/core';

export default class Orchestrator extends Command {
  static override description = [
    'Run the orchestrator: the Temporal worker of task queue kino-videos (one workflow per video) and',
    'the NodeRegistry gRPC server encode nodes register with. Configured by environment variables:',
    'DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, S3_*, REGISTRY_HOST, REGISTRY_PORT, NODE_TOKEN,',
    'NODE_HEARTBEAT_TIMEOUT_MS, ENCODE_GROUPING (auto | ladder | rendition), ORCHESTRATOR_METRICS_PORT (GET /metrics, default 7091),',
    'METRICS_TOKEN, LOG_LEVEL (`kino config check orchestrator` checks them). SIGTERM or SIGINT stops it cleanly.',
  ].join('\n');

  static override examples = [
    'NODE_TOKEN=... DATABASE_URL=postgres://... S3_ENDPOINT=... <%= config.bin %> orchestrator',
  ];
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    // Imported here: listing commands must not load Temporal's worker.
    const { createLogger, exitOnConfigError, runProcess } = await import('@kino/infra');
    const { parseOrchestratorConfig, runOrchestrator } = await import('../index.ts');
    // The same parse as `kino config check orchestrator`.
    const config = exitOnConfigError(() => parseOrchestratorConfig(process.env));
    const logger = createLogger('orchestrator', config.LOG_LEVEL);
    await runProcess({ name: 'orchestrator', logger, start: () => runOrchestrator(config, { logger }) });
  }
}
