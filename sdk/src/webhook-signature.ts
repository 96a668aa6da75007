// Standard Webhooks signatures (https://www.standardwebhooks.com), checked with Web Crypto only so
// that it runs wherever the SDK does: HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`
// with the secret's bytes (`whsec_` + base64), sent as `v1,<base64>` among space-separated
// signatures (several while a secret is rotated), and a timestamp within five minutes of now.
import { KinoError } from './errors.ts';
import type { WebhookPayload } from './types.ts';

/** How far a delivery's timestamp may be from now, either way: older ones may be replays. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/** A delivery whose signature, id or timestamp does not check out: answer it 400 and ignore it. */
export class WebhookVerificationError extends KinoError {
  override name = 'WebhookVerificationError';
}

/** The headers of a delivery: a Headers object, or a plain record (Node's `req.headers`). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Compares in time that does not depend on where the strings differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Checks a delivery and returns its parsed body; throws `WebhookVerificationError` otherwise.
 * `body` must be the raw body as received (a re-serialized JSON object would not match).
 * @example
 * // A fetch-style handler (Cloudflare Workers, Deno, Bun, Next.js route handlers):
 * const event = await verifyWebhook(await request.text(), request.headers, env.KINO_WEBHOOK_SECRET);
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  { now = Date.now() }: { now?: number } = {},
): Promise<WebhookPayload> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds))
    throw new WebhookVerificationError('invalid webhook-timestamp');
  const nowSeconds = Math.floor(now / 1000);
  if (seconds < nowSeconds - WEBHOOK_TOLERANCE_SECONDS) throw new WebhookVerificationError('message timestamp too old');
  if (seconds > nowSeconds + WEBHOOK_TOLERANCE_SECONDS) throw new WebhookVerificationError('message timestamp too new');

  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  let keyBytes: Uint8Array<ArrayBuffer>;
  try {
    keyBytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new WebhookVerificationError('the secret is not base64 (expected whsec_...)');
  }
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${text}`));
  const expected = bytesToBase64(new Uint8Array(mac));
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    return version === 'v1' && signature !== undefined && sameText(signature, expected);
  });
  if (!matches) throw new WebhookVerificationError('no matching signature');
  try {
    return JSON.parse(text) as WebhookPayload;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
