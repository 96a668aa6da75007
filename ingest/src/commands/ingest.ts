import { Command } from '@oclif/core';

export default class Ingest extends Command {
  static override description =
    'Run a live ingest: RTMP publishers (rtmp://host/live/<stream key>) and SRT callers (srt://host:9710?streamid=<stream key>), the key checked at connect, each broadcast started. Configured by INGEST_HOST, INGEST_RTMP_PORT (1935), INGEST_SRT_PORT (9710, UDP), DATABASE_URL, TEMPORAL_ADDRESS, DELIVERY_URL, INGEST_STATE_DIR, INGEST_KEY_CHECK_MS (2000) (`kino config check ingest` checks them).';
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const { exitOnConfigError, runProcess } = await import('@kino/infra');
    const { createIngestLogger, parseIngestConfig, startIngest } = await import('../index.ts');
    // The same parse as `kino config check ingest`.
    const config = exitOnConfigError(() => parseIngestConfig(process.env));
    const logger = createIngestLogger(config);
    await runProcess({ name: 'ingest', logger, start: () => startIngest(config, logger) });
  }
}
