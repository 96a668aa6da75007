import { Args } from '@oclif/core';
import { ApiCommand } from '../../api-command.ts';

export default class WebhooksRemove extends ApiCommand {
  static override description = 'Remove a webhook: no more events are sent to it.';
  static override args = { id: Args.string({ description: 'webhook id', required: true }) };

  async run(): Promise<{ id: string; removed: true }> {
    const { args, flags } = await this.parse(WebhooksRemove);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    await kino.webhooks.delete(orgId, envId, args.id);
    this.log(`Removed ${args.id}`);
    return { id: args.id, removed: true };
  }
}
