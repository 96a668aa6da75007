// Segments made on request (just in time; docs/decisions/delivery.md#segments-made-on-request),
// against real processes: PostgreSQL, SeaweedFS, chDB and `kino delivery`. No farm: the test plays
// the farm's part, with an encode queue entry a request must raise and a segment it then stores.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { waitFor } from '@kino/dev';
import { enqueueEncode, markVideoFailed } from '@kino/database/repositories';
import { contentTypeForHlsFile, objectKeys } from '@kino/proto/contract';
import { createHlsFixture, type HlsFixture } from '@kino/test/support/hls-fixture';
import { scrape, scrapeUntil } from '@kino/test/support/metrics';
import { startDeliveryStack, type DeliveryStack } from './harness.ts';

let stack: DeliveryStack;

beforeAll(async () => {
  stack = await startDeliveryStack({ analytics: 'chdb' });
});

afterAll(async () => {
  await stack?.stop();
});

const segmentName = (index: number) => `seg-${String(index).padStart(5, '0')}.m4s`;
const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
const errorOf = async (response: Response) =>
  (await response.json()) as { status: number; code: string; detail: string };

/**
 * A video published just in time, as the farm leaves it while its ladder is being made: ready with
 * `segments_pending`, its playlists and first segments stored, `missing` segments of 360p not stored
 * yet (their bytes kept here, for the test to store as the farm would), and the encode queue entry
 * that makes segments 2 and 3 waiting at priority 0. 20 s: four segments, 0 to 3.
 */
async function pendingVideo(
  missing: number[],
): Promise<{ video: HlsFixture; made: Map<number, Buffer>; entryId: string; base: string }> {
  const video = await createHlsFixture({
    db: stack.db,
    storage: stack.storage,
    workDir: stack.services.dir,
    allowPublicAccess: true,
    orgId: stack.orgId,
    envId: stack.envId,
    seconds: 20,
    ladder: [{ width: 640, height: 360 }],
  });
  assert.equal(video.renditions[0]!.segmentCount, 4);
  const made = new Map<number, Buffer>();
  for (const index of missing) {
    const key = objectKeys.segment(video.videoId, 360, index);
    made.set(index, video.objects.get(key)!);
    await stack.storage.delete(key);
  }
  await stack.db.updateTable('videos').set({ segments_pending: true }).where('id', '=', video.videoId).execute();
  const entryId = await enqueueEncode(stack.db, {
    videoId: video.videoId,
    job: `job_${video.videoId}_run_2`,
    segments: { renditions: ['360p'], firstSegment: 2, segmentCount: 2 },
  });
  return { video, made, entryId, base: `${stack.delivery.url}/${video.videoId}` };
}

async function priorityOf(entryId: string): Promise<number | undefined> {
  const row = await stack.db.selectFrom('encode_queue').select('priority').where('id', '=', entryId).executeTakeFirst();
  return row?.priority;
}

/** Whether a promise has settled, once what is queued has run (a request still waiting has not). */
function settledFlag(promise: Promise<unknown>): { settled: boolean } {
  const flag = { settled: false };
  promise.then(
    () => (flag.settled = true),
    () => (flag.settled = true),
  );
  return flag;
}

async function segmentRows(videoId: string, index: number): Promise<number> {
  const [row] = await stack.clickhouse.query<{ n: number }>(
    `SELECT count() AS n FROM segment_deliveries FINAL WHERE video_id = '${videoId}' AND segment_index = ${index}`,
  );
  return Number(row!.n);
}

describe('a segment not made yet', () => {
  test('two viewers wait on one raise of its run, and both get it, logged once each, once it is stored', async () => {
    const { video, made, entryId, base } = await pendingVideo([3]);
    const before = await scrape(`${stack.delivery.url}/metrics`);
    const requests = [fetch(`${base}/360p/${segmentName(3)}`), fetch(`${base}/360p/${segmentName(3)}`)];
    const answered = requests.map(settledFlag);

    await waitFor('the entry making segment 3 raised to priority 1', async () => (await priorityOf(entryId)) === 1);
    // The run is queued again at priority 0 (its node was lost): the waiting requests raise it again.
    await stack.db
      .updateTable('encode_queue')
      .set({ priority: 0, raised_at: null })
      .where('id', '=', entryId)
      .execute();
    await waitFor('the entry raised again', async () => (await priorityOf(entryId)) === 1);
    assert.deepEqual(
      answered.map((a) => a.settled),
      [false, false],
      'both requests are waiting, not answered',
    );

    // The farm stores the segment.
    await stack.storage.put(
      objectKeys.segment(video.videoId, 360, 3),
      made.get(3)!,
      contentTypeForHlsFile(segmentName(3)),
    );
    const responses = await Promise.all(requests);
    for (const response of responses) {
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'video/iso.segment');
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.deepEqual(await bytesOf(response), made.get(3));
    }

    const after = await scrape(`${stack.delivery.url}/metrics`);
    const added = (family: string, labels: Record<string, string> = {}) =>
      after.value(family, labels) - before.value(family, labels);
    assert.equal(added('kino_delivery_segment_waits_total', { outcome: 'made' }), 1, 'one wait for both requests');
    assert.equal(added('kino_delivery_segment_wait_seconds'), 2, 'each request observed its wait');

    // Rows ship in the order they were written: once a later segment's row is in, every row of
    // segment 3 is, and exactly two are there.
    await (await fetch(`${base}/360p/${segmentName(0)}`)).arrayBuffer();
    await waitFor('the later row in chDB', async () => (await segmentRows(video.videoId, 0)) === 1);
    assert.equal(await segmentRows(video.videoId, 3), 2, 'one row per request served');
  });

  test('a request waiting when the video fails ends with 404 video_not_found, not a hang', async () => {
    const { video, entryId, base } = await pendingVideo([3]);
    const request = fetch(`${base}/360p/${segmentName(3)}`);
    await waitFor('the request waiting (its run raised)', async () => (await priorityOf(entryId)) === 1);
    assert.equal(await markVideoFailed(stack.db, video.videoId, 'segment 3 cannot be made'), true);
    const started = Date.now();
    const response = await request;
    assert.equal(response.status, 404);
    assert.equal((await errorOf(response)).code, 'video_not_found');
    assert.ok(Date.now() - started < 5_000, 'within a few seconds of the failure (the row is read every second)');
    assert.equal(await segmentRows(video.videoId, 3), 0);
  });

  test('a request waiting when the ladder completes without its segment ends with 404 segment_not_found', async () => {
    const { video, entryId, base } = await pendingVideo([3]);
    const request = fetch(`${base}/360p/${segmentName(3)}`);
    await waitFor('the request waiting (its run raised)', async () => (await priorityOf(entryId)) === 1);
    await stack.db.updateTable('videos').set({ segments_pending: false }).where('id', '=', video.videoId).execute();
    const response = await request;
    assert.equal(response.status, 404);
    assert.equal((await errorOf(response)).code, 'segment_not_found');
  });

  test('past its deadline a request answers 503 with Retry-After', async () => {
    const node = await stack.startAnotherDelivery('short-wait-node', { DELIVERY_SEGMENT_WAIT_SECONDS: '2' });
    const { video } = await pendingVideo([3]);
    const started = Date.now();
    const response = await fetch(`${node.url}/${video.videoId}/360p/${segmentName(3)}`);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '5');
    assert.equal((await errorOf(response)).code, 'service_unavailable');
    const waited = Date.now() - started;
    assert.ok(waited >= 2_000 && waited < 6_000, `at the 2 s deadline, not before nor much later: ${waited} ms`);
    // The loop stops on its next turn after its last request has gone.
    await scrapeUntil(`${node.url}/metrics`, (metrics) =>
      assert.equal(metrics.value('kino_delivery_segment_waits_total', { outcome: 'abandoned' }), 1),
    );
    // A download waits for the whole ladder, with the same deadline.
    const download = await fetch(`${node.url}/${video.videoId}/360p.mp4`);
    assert.equal(download.status, 503);
    assert.equal(download.headers.get('retry-after'), '5');
    // The operator reads each in the node's log: its path (never a query, which may hold a token) and code.
    await waitFor('both answers in the log', async () => {
      const warned = (await readFile(node.logFile!, 'utf8'))
        .split('\n')
        .filter((line) => line.includes('delivery answered 5xx'))
        .map((line) => JSON.parse(line) as { path: string; status: number; code: string });
      assert.deepEqual(
        warned.map(({ path, status, code }) => [path, status, code]),
        [
          [`/${video.videoId}/360p/${segmentName(3)}`, 503, 'service_unavailable'],
          [`/${video.videoId}/360p.mp4`, 503, 'service_unavailable'],
        ],
      );
      return true;
    });
  });

  test('a viewer who leaves while waiting stops its wait: no segment row, 499 in the request metrics', async () => {
    const { video, made, entryId, base } = await pendingVideo([3]);
    const before = await scrape(`${stack.delivery.url}/metrics`);
    const leaving = new AbortController();
    const request = fetch(`${base}/360p/${segmentName(3)}`, { signal: leaving.signal });
    await waitFor('the request waiting (its run raised)', async () => (await priorityOf(entryId)) === 1);
    leaving.abort();
    await assert.rejects(request);
    // Stored after the viewer left: nobody is served it, so nothing is logged.
    await stack.storage.put(
      objectKeys.segment(video.videoId, 360, 3),
      made.get(3)!,
      contentTypeForHlsFile(segmentName(3)),
    );
    const added = (after: Awaited<ReturnType<typeof scrape>>, family: string, labels: Record<string, string> = {}) =>
      after.value(family, labels) - before.value(family, labels);
    const after = await scrapeUntil(`${stack.delivery.url}/metrics`, (scraped) =>
      assert.equal(added(scraped, 'kino_delivery_segment_waits_total'), 1, 'the wait ended'),
    );
    await (await fetch(`${base}/360p/${segmentName(0)}`)).arrayBuffer();
    await waitFor('a later row in chDB', async () => (await segmentRows(video.videoId, 0)) === 1);
    assert.equal(await segmentRows(video.videoId, 3), 0, 'no row for the viewer who left');
    assert.equal(
      added(after, 'kino_delivery_segment_waits_total', { outcome: 'abandoned' }),
      1,
      'the wait stopped with its only request',
    );
    assert.equal(added(after, 'kino_http_requests_total', { route: 'direct/segment', status: '499' }), 1);
  });

  test('a ready video whose ladder is complete does not wait for a segment storage lost: 404 at once', async () => {
    const { video, entryId, base } = await pendingVideo([3]);
    await stack.db.updateTable('videos').set({ segments_pending: false }).where('id', '=', video.videoId).execute();
    const before = (await scrape(`${stack.delivery.url}/metrics`)).value('kino_delivery_segment_waits_total');
    const response = await fetch(`${base}/360p/${segmentName(3)}`);
    assert.equal(response.status, 404);
    assert.equal((await errorOf(response)).code, 'not_found');
    assert.equal(
      (await scrape(`${stack.delivery.url}/metrics`)).value('kino_delivery_segment_waits_total'),
      before,
      'no wait',
    );
    assert.equal(await priorityOf(entryId), 0, 'nothing raised');
  });
});

describe('the rest of a video still being made', () => {
  test('its playlists are read from storage on every request (written again once complete), then cached', async () => {
    const { video, base } = await pendingVideo([3]);
    const key = objectKeys.renditionPlaylist(video.videoId, 360);
    const planned = video.objects.get(key)!.toString();
    const put = (text: string) => stack.storage.put(key, text, contentTypeForHlsFile('playlist.m3u8'));
    assert.match(await (await fetch(`${base}/360p.m3u8`)).text(), /360p\/seg-00003\.m4s/);
    // The ladder completes with the measured playlist (here: the planned one and a marker line).
    await put(planned.replace('#EXTM3U', '#EXTM3U\n#EXT-X-MEASURED:1'));
    assert.match(
      await (await fetch(`${base}/360p.m3u8`)).text(),
      /#EXT-X-MEASURED:1/,
      'the playlist as stored now, not a copy cached before',
    );
    await stack.db.updateTable('videos').set({ segments_pending: false }).where('id', '=', video.videoId).execute();
    // audio.m4a waits while the ladder is being made, and is 404 once complete (this video has none).
    await waitFor(
      'delivery to see the ladder complete',
      async () => (await fetch(`${base}/audio.m4a`, { method: 'HEAD' })).status === 404,
    );
    assert.match(await (await fetch(`${base}/360p.m3u8`)).text(), /#EXT-X-MEASURED:1/);
    // Complete, the playlist is cached again as any ready video's: a change in storage is not seen.
    await put(planned.replace('#EXTM3U', '#EXTM3U\n#EXT-X-CHANGED:1'));
    assert.match(await (await fetch(`${base}/360p.m3u8`)).text(), /#EXT-X-MEASURED:1/);
  });

  test('its MP4 download waits for the complete ladder, then answers every segment; nothing is raised for it', async () => {
    const { video, made, entryId, base } = await pendingVideo([3]);
    const pending = fetch(`${base}/360p.mp4`);
    const flag = settledFlag(pending);
    // Not answered while a segment is missing, and the run is not raised: a download waits its turn.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(flag.settled, false, 'the download waits');
    assert.equal(await priorityOf(entryId), 0, 'a download goes ahead of no viewer');
    await stack.storage.put(
      objectKeys.segment(video.videoId, 360, 3),
      made.get(3)!,
      contentTypeForHlsFile(segmentName(3)),
    );
    await stack.db.updateTable('videos').set({ segments_pending: false }).where('id', '=', video.videoId).execute();
    const response = await pending;
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'video/mp4');
    const body = await bytesOf(response);
    const again = await bytesOf(await fetch(`${base}/360p.mp4`));
    assert.ok(body.length > 0 && body.equals(again), 'the same file as a download of the complete video');
  });
});
