import { Args } from '@oclif/core';
import { AdminCommand } from '../../admin/admin-command.ts';
import type { BackupManifest } from '../../admin/backup.ts';

export default class AdminRestore extends AdminCommand {
  static override description = [
    'Put a backup made by `kino admin backup` back: every object into the bucket (created when missing), and the',
    "analytics tables into the store (its schema made first). Run it after pg_restore and before Kino's processes",
    'start (docs/production.md, "Backups and restore"); running it twice changes nothing. Reads S3_* and',
    'CLICKHOUSE_URL as `kino admin bootstrap` does.',
  ].join('\n');
  static override examples = ['<%= config.bin %> admin restore /backup'];
  static override args = {
    dir: Args.directory({ description: 'A directory `kino admin backup` wrote.', required: true, exists: true }),
  };

  async run(): Promise<BackupManifest> {
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { restore, backupConfigShape, parseBackupConfig } = await import('../../admin/backup.ts');
    const { args } = await this.parse(AdminRestore);
    const check = checkConfig('kino admin restore', backupConfigShape, parseBackupConfig);
    if (!check.ok) {
      reportConfigCheck(check, { json: false });
      this.exit(1);
    }
    const manifest = await restore(parseBackupConfig(), args.dir, (line) => this.note(line)).catch((error: Error) =>
      this.error(error.message, { exit: 1 }),
    );
    if (!this.jsonEnabled()) {
      const { storage, analytics } = manifest;
      this.log(`Bucket ${storage.bucket}: ${storage.objects} objects (${storage.bytes} bytes) put back.`);
      this.log(
        analytics
          ? `ClickHouse: ${analytics.tables.length} tables (${analytics.tables.reduce((sum, table) => sum + table.rows, 0)} rows) put back.`
          : 'ClickHouse: the backup holds no analytics.',
      );
    }
    return manifest;
  }
}
