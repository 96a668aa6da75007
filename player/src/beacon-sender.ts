// The beacons' batching (docs/decisions/player.md "Beacons"): a view's events queue in memory and go
// to the delivery host when BEACON_BATCH_EVENTS are waiting, every BEACON_INTERVAL_MS (the player's
// timer calls `send`), and when the page hides. Ordinary sends use fetch with keepalive, so a refusal is seen: it is logged to the
// console once and the view stops reporting. The page-hide send uses navigator.sendBeacon, which
// outlives the page. A batch over BEACON_MAX_EVENTS events or BEACON_MAX_BYTES is split.
import {
  BEACON_BATCH_EVENTS,
  BEACON_MAX_BYTES,
  BEACON_MAX_EVENTS,
  type BeaconBatch,
  type BeaconEvent,
} from '@kino/proto/contract';

/** What a batch carries besides its events. */
export type BeaconEnvelope = Omit<BeaconBatch, 'events'>;

/** How a body leaves: `fetch` (answers seen) or `beacon` (the page is going). */
export interface BeaconTransport {
  fetch(url: string, body: string): Promise<{ ok: boolean; status: number }>;
  beacon(url: string, body: string): boolean;
}

/**
 * The body goes as text/plain, which delivery reads as JSON: a CORS-safelisted type needs no
 * preflight, so a batch is one request, and sendBeacon's does not depend on a preflight answered
 * while the page is unloading (with application/json, Chromium sent no beacon on page hide).
 */
export const browserTransport: BeaconTransport = {
  fetch: (url, body) =>
    fetch(url, { method: 'POST', body, keepalive: true, headers: { 'Content-Type': 'text/plain;charset=UTF-8' } }),
  beacon: (url, body) => navigator.sendBeacon(url, new Blob([body], { type: 'text/plain;charset=UTF-8' })),
};

/** The JSON bodies of `events`: each at most BEACON_MAX_EVENTS events and BEACON_MAX_BYTES bytes. */
export function beaconBodies(envelope: BeaconEnvelope, events: readonly BeaconEvent[]): string[] {
  const bodies: string[] = [];
  const encoder = new TextEncoder();
  // The envelope's JSON ends in `[]}`: the events go between the brackets.
  const empty = JSON.stringify({ ...envelope, events: [] });
  const head = encoder.encode(empty).length;
  let batch: string[] = [];
  let bytes = head;
  const close = () => {
    if (batch.length === 0) return;
    bodies.push(`${empty.slice(0, -2)}${batch.join(',')}]}`);
    batch = [];
    bytes = head;
  };
  for (const event of events) {
    const json = JSON.stringify(event);
    const size = encoder.encode(json).length + 1;
    if (batch.length === BEACON_MAX_EVENTS || bytes + size > BEACON_MAX_BYTES) close();
    batch.push(json);
    bytes += size;
  }
  close();
  return bodies;
}

export class BeaconSender {
  #queue: BeaconEvent[] = [];
  #refused = false;

  private readonly url: string;
  private readonly envelope: BeaconEnvelope;
  private readonly transport: BeaconTransport;
  constructor(url: string, envelope: BeaconEnvelope, transport: BeaconTransport = browserTransport) {
    this.url = url;
    this.envelope = envelope;
    this.transport = transport;
  }

  push(event: BeaconEvent): void {
    if (this.#refused) return;
    this.#queue.push(event);
    if (this.#queue.length >= BEACON_BATCH_EVENTS) this.send();
  }

  /** Sends what waits with fetch (keepalive: it survives a navigation started meanwhile). */
  send(): void {
    for (const body of this.#take())
      this.transport.fetch(this.url, body).then(
        (response) => {
          if (response.ok || this.#refused) return;
          // Refused (a 4xx says this view will never be accepted): say so once, stop reporting.
          if (response.status >= 400 && response.status < 500) this.#refuse(`HTTP ${response.status}`);
        },
        () => undefined,
      );
  }

  /** Sends what waits with sendBeacon: the page is hiding or closing. */
  sendBeacon(): void {
    for (const body of this.#take())
      if (!this.transport.beacon(this.url, body)) void this.transport.fetch(this.url, body);
  }

  #take(): string[] {
    if (this.#queue.length === 0 || this.#refused) return [];
    const events = this.#queue;
    this.#queue = [];
    return beaconBodies(this.envelope, events);
  }

  #refuse(reason: string): void {
    this.#refused = true;
    this.#queue = [];
    console.warn(`kino-player: the delivery host refused this view's beacons (${reason}); it is no longer reported.`);
  }
}
