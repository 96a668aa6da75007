// The delivery node's metrics (docs/metrics.md). The per-segment path only increments counters:
// the request counter, and plain numbers read at scrape time (segments and bytes served, the
// cache's hits and misses). Spool depth and shipping lag are read from the spool directories at scrape
// time too, per spool: segment rows, and the players' playback events (beacons).
// Segments made on request (segment-waits.ts) are off the hot path: a labelled counter and a histogram.
import { Counter, Gauge, Histogram, httpRequestMetrics, type Registry } from '@kino/infra';
import type { ObjectCache } from './object-cache.ts';
import type { Family } from './paths.ts';
import type { SegmentWaitMetrics } from './segment-waits.ts';
import type { RowSpool } from './row-spool.ts';

type SpoolSource = Pick<RowSpool, 'counts' | 'spoolState'>;

export interface DeliveryMetricSources {
  cache: Pick<ObjectCache, 'lookups'>;
  segments: SpoolSource;
  playbackEvents: SpoolSource;
}

/** A counter whose value another object keeps (a plain number incremented on the hot path), read at scrape. */
function readCounter(registry: Registry, name: string, help: string, read: () => number): Counter {
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

export function createDeliveryMetrics(registry: Registry, { cache, segments, playbackEvents }: DeliveryMetricSources) {
  new Counter({
    name: 'kino_delivery_cache_hits_total',
    help: "Object lookups answered by the node's cache, by tier (memory: the hot set; disk: the local cache; joined: a storage read already under way for the key).",
    labelNames: ['tier'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ tier: 'memory' }, cache.lookups.memoryHits);
      this.inc({ tier: 'disk' }, cache.lookups.diskHits);
      this.inc({ tier: 'joined' }, cache.lookups.joinedHits);
    },
  });
  readCounter(
    registry,
    'kino_delivery_cache_misses_total',
    'Object lookups the cache could not answer: read from storage.',
    () => cache.lookups.misses,
  );
  readCounter(
    registry,
    'kino_delivery_segment_rows_spooled_total',
    'Segment rows written to the spool by this process.',
    () => segments.counts.spooledRows,
  );
  readCounter(
    registry,
    'kino_delivery_segment_rows_shipped_total',
    'Segment rows inserted into ClickHouse by this process (replayed batches included).',
    () => segments.counts.shippedRows,
  );
  readCounter(
    registry,
    'kino_delivery_segment_ship_failures_total',
    'Shipping passes that failed (ClickHouse unreachable or refusing): the rows wait in the spool.',
    () => segments.counts.shipFailures,
  );
  readCounter(
    registry,
    'kino_delivery_playback_events_spooled_total',
    "Players' playback events (beacons) written to the spool by this process.",
    () => playbackEvents.counts.spooledRows,
  );
  readCounter(
    registry,
    'kino_delivery_playback_events_shipped_total',
    'Playback events inserted into ClickHouse by this process (replayed batches included).',
    () => playbackEvents.counts.shippedRows,
  );
  readCounter(
    registry,
    'kino_delivery_playback_event_ship_failures_total',
    'Shipping passes of playback events that failed: the events wait in the spool.',
    () => playbackEvents.counts.shipFailures,
  );
  spoolGauges(registry, { segments, playback_events: playbackEvents });

  return {
    http: httpRequestMetrics(registry),
    segments: segmentTallies(registry),
    segmentWaits: segmentWaitMetrics(registry),
  };
}

/**
 * Each spool's depth and lag, labelled `spool` (`segments`, `playback_events`), read from its
 * directory at scrape: an alert on `max(...)` covers both.
 */
function spoolGauges(registry: Registry, spools: Record<'segments' | 'playback_events', SpoolSource>): void {
  const gauge = (name: string, help: string, read: (state: Awaited<ReturnType<SpoolSource['spoolState']>>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['spool'] as const,
      registers: [registry],
      async collect() {
        for (const [spool, source] of Object.entries(spools)) this.set({ spool }, read(await source.spoolState()));
      },
    });
  gauge(
    'kino_delivery_spool_files',
    'Spool files waiting to be shipped (sealed batches plus the open file when it holds rows), per spool.',
    (state) => state.files,
  );
  gauge('kino_delivery_spool_bytes', 'Bytes of rows waiting in the spool, per spool.', (state) => state.bytes);
  gauge(
    'kino_delivery_spool_lag_seconds',
    'Age of the oldest row not yet shipped (0 when the spool is empty): the shipping lag, per spool.',
    (state) => state.oldestRowAgeSeconds,
  );
}

/** A segment made on request takes a run of the farm: seconds to a minute (the wait's default deadline), or more. */
const segmentWaitBuckets = [0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 45, 60, 120];

/** Segments waited for (made on request, just in time) and how long requests waited for them. */
function segmentWaitMetrics(registry: Registry): SegmentWaitMetrics {
  const waits = new Counter({
    name: 'kino_delivery_segment_waits_total',
    help: 'Segments a request found missing from storage on a video whose segments are still being made, so waited for (one per segment however many requests waited on it), by how the wait ended: made (stored, then served), complete (the ladder completed without it), unplayable (the video failed or was deleted), abandoned (every request waiting gave up: its deadline, or its client left), error (storage or the database failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'kino_delivery_segment_wait_seconds',
    help: 'Seconds each request waited for a segment being made on request, whatever ended the wait (the deadline is DELIVERY_SEGMENT_WAIT_SECONDS).',
    buckets: segmentWaitBuckets,
    registers: [registry],
  });
  return {
    segmentWaited: (end) => waits.inc({ outcome: end }),
    requestWaited: (waited) => seconds.observe(waited),
  };
}

const families: readonly Family[] = ['public', 'private', 'direct', 'share'];
const accesses = ['public', 'private'] as const;

/**
 * Media segments served and their bytes, by path family and access: plain numbers on the
 * per-segment path (a labelled prom-client `inc` builds a label string and a result object each
 * time), read into two counters at scrape.
 */
function segmentTallies(registry: Registry) {
  const tallies = Object.fromEntries(
    families.map((family) => [
      family,
      Object.fromEntries(accesses.map((access) => [access, { segments: 0, bytes: 0 }])),
    ]),
  ) as Record<Family, Record<(typeof accesses)[number], { segments: number; bytes: number }>>;
  const readInto = (counter: Counter<'family' | 'access'>, field: 'segments' | 'bytes') => {
    counter.reset();
    for (const family of families) {
      for (const access of accesses) {
        const value = tallies[family][access][field];
        if (value > 0) counter.inc({ family, access }, value);
      }
    }
  };
  new Counter({
    name: 'kino_delivery_segments_served_total',
    help: 'Media segments served (whole, or the range that starts them; MP4 downloads count their segments), by path family and access.',
    labelNames: ['family', 'access'] as const,
    registers: [registry],
    collect() {
      readInto(this, 'segments');
    },
  });
  new Counter({
    name: 'kino_delivery_segment_bytes_total',
    help: 'Bytes of the media segments counted by kino_delivery_segments_served_total.',
    labelNames: ['family', 'access'] as const,
    registers: [registry],
    collect() {
      readInto(this, 'bytes');
    },
  });
  return {
    count(family: Family, access: 'public' | 'private', bytes: number): void {
      const tally = tallies[family][access];
      tally.segments++;
      tally.bytes += bytes;
    },
  };
}
export type DeliveryMetrics = ReturnType<typeof createDeliveryMetrics>;
