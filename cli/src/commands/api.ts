import { KinoCommand } from '../base-command.ts';

export default class Api extends KinoCommand {
  static override description =
    'Run the control-plane HTTP API (/v1/api). Configured by environment variables: API_HOST (127.0.0.1), ' +
    'API_PORT (7080), DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE (default), S3_ENDPOINT, S3_BUCKET, ' +
    'S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION, S3_FORCE_PATH_STYLE, CLICKHOUSE_URL, API_CORS_ORIGINS, ' +
    'DELIVERY_URL, WEB_APP_URL, LOG_LEVEL. Migrations run at start; SIGINT/SIGTERM stop it cleanly.';
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    // Imported here so other commands do not load the whole API.
    const { runApiServer } = await import('@kino/control-plane');
    await runApiServer();
  }
}
