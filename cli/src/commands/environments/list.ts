import type { Environment } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { justInTimeWord } from '../../environment-settings.ts';

export default class EnvironmentsList extends ApiCommand {
  static override description =
    "List the organization's environments (an environment key sees its own) with their just-in-time setting.";

  async run(): Promise<Environment[]> {
    const { flags } = await this.parse(EnvironmentsList);
    const { kino, orgId } = await this.api(flags);
    const environments = await kino.environments.list(orgId);
    if (!this.jsonEnabled()) {
      const { formatDate, printTable } = await import('../../output.ts');
      await printTable(
        environments.map((e) => ({
          id: e.id,
          name: e.name,
          justInTime: justInTimeWord(e.justInTime),
          hardware: e.hardwareEncoding,
          labels: e.nodeLabels.join(','),
          created: formatDate(e.createdAt),
        })),
        [
          { key: 'id', name: 'ID' },
          { key: 'name', name: 'Name' },
          { key: 'justInTime', name: 'Just-in-time' },
          { key: 'hardware', name: 'Hardware encoding' },
          { key: 'labels', name: 'Node labels' },
          { key: 'created', name: 'Created' },
        ],
        'no environments',
      );
    }
    return environments;
  }
}
