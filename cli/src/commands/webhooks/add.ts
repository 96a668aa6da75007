import { Args, Flags } from '@oclif/core';
import type { CreatedWebhook } from '@kino/sdk';
import { webhookEvents } from '@kino/proto/contract';
import { ApiCommand } from '../../api-command.ts';

export default class WebhooksAdd extends ApiCommand {
  static override description =
    'Register a webhook URL for the environment. Its signing secret is shown once: keep it.';
  static override examples = [
    '<%= config.bin %> webhooks add https://example.com/hooks/kino --events video.processing.completed,video.processing.failed',
  ];
  static override args = { url: Args.string({ description: 'the http(s) URL events are POSTed to', required: true }) };
  static override flags = {
    events: Flags.string({
      description: 'comma-separated events (default: every event)',
      delimiter: ',',
      multiple: true,
      options: [...webhookEvents],
    }),
  };

  async run(): Promise<CreatedWebhook> {
    const { args, flags } = await this.parse(WebhooksAdd);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const webhook = await kino.webhooks.create(orgId, envId, {
      url: args.url,
      events: flags.events as CreatedWebhook['events'] | undefined,
    });
    this.log(`${webhook.id}  ${webhook.url}`);
    this.log(`secret: ${webhook.secret}  (shown once)`);
    return webhook;
  }
}
