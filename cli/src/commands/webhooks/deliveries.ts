import { Args } from '@oclif/core';
import type { WebhookDelivery } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class WebhooksDeliveries extends ApiCommand {
  static override description =
    "A webhook's delivery log: its latest attempts, newest first (each retry and redelivery is a row).";
  static override args = { id: Args.string({ description: 'webhook id', required: true }) };

  async run(): Promise<WebhookDelivery[]> {
    const { args, flags } = await this.parse(WebhooksDeliveries);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const deliveries = await kino.webhooks.deliveries(orgId, envId, args.id);
    if (!this.jsonEnabled()) {
      const { printDeliveries } = await import('../../webhook-deliveries.ts');
      await printDeliveries(deliveries, 'no deliveries');
    }
    return deliveries;
  }
}
