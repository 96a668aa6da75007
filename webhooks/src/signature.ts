// Standard Webhooks signing (https://www.standardwebhooks.com): the receiver recomputes
// HMAC-SHA256 over "{webhook-id}.{webhook-timestamp}.{body}" with the endpoint's secret.
import { createHmac } from 'node:crypto';

/** The secret's key bytes: `whsec_` + base64, per the Standard Webhooks convention. */
export function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
}

export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): WebhookHeaders {
  const signature = createHmac('sha256', webhookSecretKey(secret))
    .update(`${messageId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
    'content-type': 'application/json',
  };
}
