import { Args } from '@oclif/core';
import type { WebhookDelivery } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class WebhooksRedeliver extends ApiCommand {
  static override description =
    'Send a logged delivery again, once: the same body and webhook-id. Prints the new attempt.';
  static override args = {
    id: Args.string({ description: 'webhook id', required: true }),
    deliveryId: Args.string({ description: 'delivery id (from `kino webhooks deliveries`)', required: true }),
  };

  async run(): Promise<WebhookDelivery> {
    const { args, flags } = await this.parse(WebhooksRedeliver);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const delivery = await kino.webhooks.redeliver(orgId, envId, args.id, args.deliveryId);
    if (!this.jsonEnabled()) {
      const { printDeliveries } = await import('../../webhook-deliveries.ts');
      await printDeliveries([delivery]);
    }
    return delivery;
  }
}
