import type { Webhook } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class WebhooksList extends ApiCommand {
  static override description = 'List the webhooks of the environment (secrets are never shown again).';

  async run(): Promise<Webhook[]> {
    const { flags } = await this.parse(WebhooksList);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const webhooks = await kino.webhooks.list(orgId, envId);
    if (!this.jsonEnabled()) {
      const { formatDate, printTable } = await import('../../output.ts');
      await printTable(
        webhooks.map((w) => ({ id: w.id, url: w.url, events: w.events.join(', '), created: formatDate(w.createdAt) })),
        [
          { key: 'id', name: 'ID' },
          { key: 'url', name: 'URL' },
          { key: 'events', name: 'Events' },
          { key: 'created', name: 'Created' },
        ],
        'no webhooks',
      );
    }
    return webhooks;
  }
}
