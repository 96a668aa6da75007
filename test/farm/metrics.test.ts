// Every process of a real farm serves Prometheus metrics (docs/metrics.md), and after real work
// (an upload processed on a node, its segments served, its webhook sent once refused and then
// delivered) the series say what happened: segments served equal the segments fetched, encodes
// running are back to 0, the refused webhook counts as a failure. One farm for the file; the
// orchestrator runs with a METRICS_TOKEN, so its /metrics shows the token check too.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import { BEACONS_PATH } from '@kino/proto/contract';
import { makeClip } from '@kino/test/support/media';
import { scrape, scrapeUntil } from '@kino/test/support/metrics';
import {
  registerWebhook,
  startFarm,
  startWebhookReceiver,
  type Farm,
  type FarmNodeProcess,
  type WebhookReceiver,
} from './farm.ts';

const metricsToken = `metrics-test-${process.pid}-token`;

let farm: Farm;
let receiver: WebhookReceiver;
let node: FarmNodeProcess;
let clipPath: string;
let metricsUrls: Record<string, string>;

beforeAll(async () => {
  [farm, receiver, clipPath] = await Promise.all([
    startFarm({ playback: true, orchestratorEnv: { METRICS_TOKEN: metricsToken } }),
    startWebhookReceiver(),
    makeClip({
      seconds: 4,
      width: 640,
      height: 360,
      fps: 24,
      audio: true,
      path: join(tmpdir(), `kino-metrics-clip-${process.pid}.mp4`),
    }),
  ]);
  receiver.secret = await registerWebhook(farm, receiver.url);
  node = await farm.startNode('a');
  metricsUrls = farm.metricsUrls;
}, 240_000);

afterAll(async () => {
  await farm?.stop();
  await receiver?.close();
  if (clipPath) await rm(clipPath, { force: true });
});

describe('metrics of a farm after real work', () => {
  let videoId: string;
  /** Bytes of each direct-family segment fetched. */
  const segmentSizes: number[] = [];
  let qualities: string[];

  it('processes a video, serves its segments and sends its webhook', async () => {
    receiver.failEvent = 'video.processing.completed';
    receiver.failNext = 1;
    videoId = await farm.submitVideo(await readFile(clipPath));
    await farm.waitForStatus(videoId, 'ready');
    await waitFor(
      'the completed webhook, accepted after one refusal',
      () =>
        receiver.received.find(
          (hook) =>
            hook.payload.videoId === videoId && hook.payload.event === 'video.processing.completed' && !hook.refused,
        ),
      { timeoutMs: 60_000 },
    );

    const masterUrl = `${farm.deliveryUrl}/${videoId}/master.m3u8`;
    const master = await (await fetch(masterUrl)).text();
    const renditionUris = master.split('\n').filter((line) => line.endsWith('.m3u8'));
    qualities = renditionUris.map((uri) => uri.replace(/\.m3u8$/, ''));
    assert.ok(qualities.length >= 1, master);
    const playlistUrl = new URL(renditionUris[0]!, masterUrl);
    const playlist = await (await fetch(playlistUrl)).text();
    for (const uri of playlist.split('\n').filter((line) => line.endsWith('.m4s'))) {
      const response = await fetch(new URL(uri, playlistUrl));
      assert.equal(response.status, 200);
      segmentSizes.push((await response.arrayBuffer()).byteLength);
    }
    assert.ok(segmentSizes.length >= 1, playlist);
    // The first segment once more, through the public family: served from the node's cache.
    const publicSegment = await fetch(
      `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/video-${qualities[0]}/seg-0.m4s`,
    );
    assert.equal(publicSegment.status, 200);
    await publicSegment.arrayBuffer();
  });

  it('delivery counts every segment served, by family and access, and ships every row', async () => {
    const delivery = await scrapeUntil(metricsUrls.delivery!, (scraped) => {
      // Shipping runs every second: wait until every row has left the spool.
      assert.equal(scraped.value('kino_delivery_segment_rows_shipped_total'), segmentSizes.length + 1);
      assert.equal(scraped.value('kino_delivery_spool_files'), 0);
    });
    assert.equal(
      delivery.value('kino_delivery_segments_served_total', { family: 'direct', access: 'public' }),
      segmentSizes.length,
    );
    assert.equal(delivery.value('kino_delivery_segments_served_total', { family: 'public', access: 'public' }), 1);
    assert.equal(delivery.value('kino_delivery_segments_served_total', { access: 'private' }), 0);
    const directBytes = segmentSizes.reduce((sum, size) => sum + size, 0);
    assert.equal(delivery.value('kino_delivery_segment_bytes_total', { family: 'direct' }), directBytes);
    assert.equal(delivery.value('kino_delivery_segment_bytes_total', { family: 'public' }), segmentSizes[0]);
    assert.equal(delivery.value('kino_delivery_segment_rows_spooled_total'), segmentSizes.length + 1);
    assert.equal(delivery.value('kino_delivery_spool_lag_seconds'), 0);
    assert.equal(delivery.value('kino_delivery_segment_ship_failures_total'), 0);
    // Requests by route pattern and status: the segments, and no raw path as a label.
    assert.equal(
      delivery.value('kino_http_requests_total', { route: 'direct/segment', status: '200' }),
      segmentSizes.length,
    );
    assert.equal(delivery.value('kino_http_requests_total', { route: 'direct/master', status: '200' }), 1);
    for (const route of delivery.labelValues('kino_http_requests_total', 'route'))
      assert.ok(!route.includes(videoId), route);
    // Segments are counted, not timed; playlists are timed.
    assert.equal(delivery.value('kino_http_request_duration_seconds', { route: 'direct/segment' }), 0);
    assert.equal(delivery.value('kino_http_request_duration_seconds', { route: 'direct/master' }), 1);
    // Each segment was fetched from storage once (a miss), the repeat through the public family was a hit.
    assert.ok(delivery.value('kino_delivery_cache_misses_total') >= segmentSizes.length);
    assert.ok(delivery.value('kino_delivery_cache_hits_total') >= 1);
    assert.ok(delivery.has('process_cpu_user_seconds_total'), 'the process defaults');
  });

  it("delivery counts a player's playback events into their own spool and ships every one", async () => {
    const events = [
      { type: 'viewstart', at: 0 },
      { type: 'playrequest', at: 5 },
      { type: 'viewend', at: 9 },
    ];
    const accepted = await fetch(`${farm.deliveryUrl}${BEACONS_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ viewId: randomUUID(), videoId, player: { name: 'test', version: '1' }, events }),
    });
    assert.equal(accepted.status, 202);
    const delivery = await scrapeUntil(metricsUrls.delivery!, (scraped) => {
      assert.equal(scraped.value('kino_delivery_playback_events_shipped_total'), events.length);
      assert.equal(scraped.value('kino_delivery_spool_files', { spool: 'playback_events' }), 0);
    });
    assert.equal(delivery.value('kino_delivery_playback_events_spooled_total'), events.length);
    assert.equal(delivery.value('kino_delivery_playback_event_ship_failures_total'), 0);
    assert.equal(delivery.value('kino_delivery_spool_lag_seconds', { spool: 'playback_events' }), 0);
    assert.deepEqual(delivery.labelValues('kino_delivery_spool_bytes', 'spool').sort(), [
      'playback_events',
      'segments',
    ]);
  });

  it('the orchestrator reports its encodes, the farm and the webhook, behind its metrics token', async () => {
    const url = metricsUrls.orchestrator!;
    const refused = await fetch(url);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'unauthorized');
    assert.equal((await fetch(url, { headers: { authorization: 'Bearer not-the-token' } })).status, 401);

    const orchestrator = await scrapeUntil(
      url,
      (scraped) => {
        assert.equal(scraped.value('kino_encodes_running'), 0);
        assert.ok(scraped.value('kino_registry_heartbeats_total', { result: 'known' }) >= 1);
      },
      metricsToken,
    );
    assert.equal(orchestrator.value('kino_encodes_queued'), 0);
    // One encode for the ladder (one node): one observation per rendition it made, and the audio.
    assert.deepEqual(
      orchestrator
        .labelValues('kino_encode_seconds', 'rendition')
        .filter((r) => r !== 'audio')
        .sort(),
      [...qualities].sort(),
    );
    for (const quality of qualities)
      assert.ok(orchestrator.value('kino_encode_seconds', { rendition: quality }) >= 1, quality);
    assert.equal(orchestrator.value('kino_webhook_deliveries_total', { result: 'refused' }), 1);
    assert.ok(orchestrator.value('kino_webhook_deliveries_total', { result: 'delivered' }) >= 1);
    assert.equal(orchestrator.value('kino_webhook_deliveries_total', { result: 'unreachable' }), 0);
    assert.equal(orchestrator.value('kino_farm_nodes_live'), 1);
    assert.equal(orchestrator.value('kino_farm_slots', { state: 'total' }), 1);
    assert.equal(orchestrator.value('kino_farm_slots', { state: 'in_use' }), 0);
    const ages = orchestrator.matching('kino_farm_node_heartbeat_age_seconds', { node: node.nodeId });
    assert.equal(ages.length, 1);
    assert.ok(ages[0]!.value >= 0);
  });

  it('the encode node reports its slots, jobs and heartbeats', async () => {
    const nodeMetrics = await scrapeUntil(node.metricsUrl, (scraped) => {
      assert.ok(scraped.value('kino_node_heartbeats_total', { result: 'ok' }) >= 1);
    });
    assert.equal(nodeMetrics.value('kino_node_slots', { state: 'total' }), 1);
    assert.equal(nodeMetrics.value('kino_node_slots', { state: 'in_use' }), 0);
    assert.equal(nodeMetrics.value('kino_node_jobs_running'), 0);
    assert.ok(nodeMetrics.value('kino_node_jobs_total', { kind: 'probe', result: 'done' }) >= 1);
    assert.ok(nodeMetrics.value('kino_node_jobs_total', { kind: 'encode', result: 'done' }) >= 1);
    assert.equal(nodeMetrics.value('kino_node_jobs_total', { result: 'failed' }), 0);
    assert.ok(nodeMetrics.value('kino_node_heartbeat_age_seconds') >= 0);
  });

  it('the API counts and times requests by route pattern, and keeps /metrics out of its OpenAPI document', async () => {
    const api = await scrape(metricsUrls.api!);
    const processRoute = '/v1/api/:orgID/environments/:envID/videos/process';
    const routes = api.labelValues('kino_http_requests_total', 'route');
    assert.ok(api.value('kino_http_requests_total', { route: processRoute, method: 'POST' }) >= 1, routes.join(', '));
    assert.ok(api.value('kino_http_request_duration_seconds', { route: processRoute, method: 'POST' }) >= 1);
    for (const route of routes) assert.ok(!route.includes(videoId) && !route.includes(farm.orgId), route);
    const document = (await (await fetch(`${farm.apiUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.ok(!Object.keys(document.paths).some((path) => path.includes('metrics')));
  });

  it('the analytics store counts its queries', async () => {
    const analytics = await scrape(metricsUrls.analytics!);
    assert.ok(analytics.value('kino_analytics_store_queries_total', { result: 'ok' }) >= 1);
    assert.ok(analytics.value('kino_analytics_store_query_seconds') >= 1);
  });
});
