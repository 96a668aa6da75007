import { Command } from '@oclif/core';

export default class Api extends Command {
  static override description =
    'Run the HTTP API (/v1/api). Configured by environment variables: API_HOST (127.0.0.1), ' +
    'API_PORT (7080), DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE (default), S3_ENDPOINT, S3_BUCKET, ' +
    'S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION, S3_FORCE_PATH_STYLE, S3_PUBLIC_ENDPOINT, CLICKHOUSE_URL, API_CORS_ORIGINS, ' +
    'DELIVERY_URL, WEB_APP_URL, OPERATOR_TOKEN, KINO_KEY_ENCRYPTION_KEY, LOG_LEVEL (`kino config check api` checks them). Migrations run at start; SIGINT/SIGTERM stop it cleanly.';
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    process.env.AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING ??= '1';
    // Imported here so other commands do not load the whole API.
    const { createLogger, exitOnConfigError, runProcess } = await import('@kino/infra');
    const { parseApiConfig } = await import('../config.ts');
    const { startApiServer } = await import('../server.ts');
    // The same parse as `kino config check api`.
    const config = exitOnConfigError(() => parseApiConfig(process.env));
    const logger = createLogger('api', config.LOG_LEVEL);
    await runProcess({ name: 'API', logger, start: () => startApiServer(config, { logger }) });
  }
}
