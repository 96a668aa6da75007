// What delivery checks of a player's beacons (issue 58; the shapes are @kino/proto's beacons.ts):
// every field of the batch and of each event, with zod (already the config's parser) so a refusal
// names the field; the browser and operating system of the User-Agent; and the per-address limit.
import type { FieldError, BeaconBatch } from '@kino/proto/contract';
import { BEACON_MAX_AT_MS, BEACON_MAX_EVENTS, beaconEventTypes } from '@kino/proto/contract';
import { z } from '@kino/infra';
import { DeliveryError } from './errors.ts';

const at = z.number().int().min(0).max(BEACON_MAX_AT_MS);
const mediaMs = z.number().int().min(0).max(4_294_967_295);
const plainEvent = z.strictObject({
  type: z.enum(['viewstart', 'playrequest', 'firstframe', 'rebufferstart', 'rebufferend', 'viewend']),
  at,
});
const eventSchema = z.discriminatedUnion('type', [
  plainEvent,
  z.strictObject({
    type: z.literal('rendition'),
    at,
    height: z.number().int().min(0).max(65_535),
    bitrate: z.number().int().min(0).max(4_294_967_295),
    codec: z.string().max(64),
  }),
  z.strictObject({ type: z.literal('seek'), at, from: mediaMs, to: mediaMs }),
  z.strictObject({ type: z.literal('error'), at, code: z.string().min(1).max(128), fatal: z.boolean() }),
  z.strictObject({ type: z.literal('heartbeat'), at, watchedMs: z.number().int().min(0).max(BEACON_MAX_AT_MS) }),
]);
const idSchema = z.string().min(1).max(128);
const batchSchema = z.strictObject({
  viewId: z.uuid(),
  videoId: idSchema,
  token: z.string().max(4096).optional(),
  orgId: idSchema.optional(),
  envId: idSchema.optional(),
  player: z.strictObject({ name: z.string().min(1).max(64), version: z.string().min(1).max(32) }),
  events: z.array(eventSchema).min(1).max(BEACON_MAX_EVENTS),
});

// The contract's list and the schema's must name the same events.
const schemaTypes: readonly string[] = [...plainEvent.shape.type.options, 'rendition', 'seek', 'error', 'heartbeat'];
if (beaconEventTypes.some((type) => !schemaTypes.includes(type)))
  throw new Error('the beacon schema lacks an event type of the contract');

/** A batch's body as JSON text, checked: the batch, or a 400 naming every field that is wrong. */
export function parseBeaconBatch(text: string): BeaconBatch {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DeliveryError(400, 'invalid_beacon', 'The beacon body is not JSON.', [
      { location: 'body', message: 'must be a JSON object', value: null },
    ]);
  }
  const parsed = batchSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors: FieldError[] = parsed.error.issues.slice(0, 20).map((issue) => ({
    location: ['body', ...issue.path.map(String)].join('.'),
    message: issue.message,
    value: valueAt(value, issue.path) ?? null,
  }));
  throw new DeliveryError(
    400,
    'invalid_beacon',
    `The beacon batch is invalid: ${errors.map((e) => e.location).join(', ')}.`,
    errors,
  );
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) at = at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return typeof at === 'object' ? undefined : at;
}

/**
 * The browser and operating system families of a User-Agent, what experience analytics group by.
 * A dozen lines rather than a library: ua-parser-js 2 is AGPL, and a grouping needs the family
 * only (docs/decisions/analytics.md "Player beacons"). Order matters: Edge and Opera say Chrome,
 * Chrome says Safari, and iPadOS says Mac OS X.
 */
export function clientOf(userAgent: string | undefined): { browser: string; os: string } {
  const ua = userAgent ?? '';
  const browser = /Edg(e|A|iOS)?\//.test(ua)
    ? 'Edge'
    : /OPR\/|Opera/.test(ua)
      ? 'Opera'
      : /SamsungBrowser\//.test(ua)
        ? 'Samsung Internet'
        : /Firefox\/|FxiOS\//.test(ua)
          ? 'Firefox'
          : /Chrome\/|CriOS\/|HeadlessChrome\//.test(ua)
            ? 'Chrome'
            : /Safari\//.test(ua)
              ? 'Safari'
              : 'Other';
  const os = /iPhone|iPad|iPod/.test(ua)
    ? 'iOS'
    : /Android/.test(ua)
      ? 'Android'
      : /Windows/.test(ua)
        ? 'Windows'
        : /CrOS/.test(ua)
          ? 'ChromeOS'
          : /Mac OS X|Macintosh/.test(ua)
            ? 'macOS'
            : /Linux/.test(ua)
              ? 'Linux'
              : 'Other';
  return { browser, os };
}

/**
 * Beacon requests per client address: a token bucket each, `perSecond` refilled up to `burst`. A
 * player sends one request every 10 s; the limit is for a flood from one address, and a viewer
 * behind a shared address (NAT) is one of many. Addresses not seen for a minute are forgotten.
 */
export class BeaconLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private swept = 0;

  private readonly perSecond: number;
  private readonly burst: number;
  private readonly now: () => number;
  constructor(perSecond: number, burst = perSecond * 2, now: () => number = Date.now) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.now = now;
  }

  /** Takes one request's token for `address`; throws a 429 with Retry-After when there is none. */
  take(address: string): void {
    const now = this.now();
    if (now - this.swept > 60_000) this.sweep(now);
    const bucket = this.buckets.get(address) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(address, bucket);
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
      throw new DeliveryError(
        429,
        'rate_limited',
        `Too many beacon requests from this address: at most ${this.perSecond} a second.`,
        undefined,
        { 'Retry-After': String(retryAfter) },
      );
    }
    bucket.tokens -= 1;
  }

  private sweep(now: number): void {
    this.swept = now;
    for (const [address, bucket] of this.buckets) if (now - bucket.at > 60_000) this.buckets.delete(address);
  }
}
