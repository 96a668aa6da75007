import { Args } from '@oclif/core';
import type { WebhookDelivery } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class WebhooksTest extends ApiCommand {
  static override description = 'Send a webhook.test event to a webhook, once. Prints the attempt.';
  static override args = { id: Args.string({ description: 'webhook id', required: true }) };

  async run(): Promise<WebhookDelivery> {
    const { args, flags } = await this.parse(WebhooksTest);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const delivery = await kino.webhooks.test(orgId, envId, args.id);
    if (!this.jsonEnabled()) {
      const { printDeliveries } = await import('../../webhook-deliveries.ts');
      await printDeliveries([delivery]);
    }
    return delivery;
  }
}
