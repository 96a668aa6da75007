import { Args } from '@oclif/core';
import { AdminCommand } from '../../admin/admin-command.ts';
import type { BackupManifest } from '../../admin/backup.ts';

export default class AdminBackup extends AdminCommand {
  static override description = [
    "Copy the bucket (every object, with its content type) and the analytics store (every table of Kino's ClickHouse",
    'migrations) into DIR, a new directory, and write DIR/kino-backup.json last. PostgreSQL is not in it: dump the',
    'databases with pg_dump first (docs/production.md, "Backups and restore"). Reads S3_* and CLICKHOUSE_URL as',
    '`kino admin bootstrap` does.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> admin backup /backup',
    '<%= config.bin %> admin backup /backup --json',
  ];
  static override args = {
    dir: Args.directory({ description: 'Where the backup goes (made when missing).', required: true }),
  };

  async run(): Promise<BackupManifest> {
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { backup, backupConfigShape, parseBackupConfig } = await import('../../admin/backup.ts');
    const { args } = await this.parse(AdminBackup);
    const check = checkConfig('kino admin backup', backupConfigShape, parseBackupConfig);
    if (!check.ok) {
      reportConfigCheck(check, { json: false });
      this.exit(1);
    }
    const manifest = await backup(parseBackupConfig(), args.dir, (line) => this.note(line)).catch((error: Error) =>
      this.error(error.message, { exit: 1 }),
    );
    if (!this.jsonEnabled()) {
      const { storage, analytics } = manifest;
      this.log(`Bucket ${storage.bucket}: ${storage.objects} objects (${storage.bytes} bytes) copied.`);
      this.log(
        analytics
          ? `ClickHouse: ${analytics.tables.length} tables (${analytics.tables.reduce((sum, table) => sum + table.rows, 0)} rows) copied.`
          : 'ClickHouse: not configured (CLICKHOUSE_URL unset), nothing copied.',
      );
      this.log(`Backup written to ${args.dir}.`);
    }
    return manifest;
  }
}
