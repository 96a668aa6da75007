// URL ingest end to end on real processes (API, Temporal, orchestrator, an encode node, SeaweedFS):
// a video ingested from a local HTTP server that cuts the connection mid-body is fetched whole
// (resumed with Range), becomes ready and plays every frame; a URL answering 404 ends `failed`
// with the named reason in the details and the failed webhook. The dev stack's
// WEBHOOK_ALLOW_PRIVATE lets the orchestrator reach this test's server on 127.0.0.1.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import { objectKeys } from '@kino/proto/contract';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { registerWebhook, startWebhookReceiver, type FarmTenant, type WebhookReceiver } from './farm.ts';
import { joinSharedFarm } from './shared-farm.ts';

let farm: FarmTenant;
let receiver: WebhookReceiver;
let workDir: string;
let clipPath: string;
let clip: Buffer;
let server: Server;
let baseUrl: string;
/** Every request the source server saw: path and Range header. */
const requests: Array<{ path: string; range?: string }> = [];

/** Serves the clip at /clip.mp4 with Range support, cutting the first whole response at half; 404 elsewhere. */
function serveSource(request: IncomingMessage, response: ServerResponse): void {
  requests.push({ path: request.url ?? '', ...(request.headers.range ? { range: request.headers.range } : {}) });
  if (request.url !== '/clip.mp4') {
    response.writeHead(404).end('no such file');
    return;
  }
  const match = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
  const start = match ? Number(match[1]) : 0;
  response.setHeader('accept-ranges', 'bytes');
  response.setHeader('etag', '"clip-v1"');
  if (match) {
    response.writeHead(206, {
      'content-length': clip.length - start,
      'content-range': `bytes ${start}-${clip.length - 1}/${clip.length}`,
    });
    response.end(clip.subarray(start));
    return;
  }
  response.writeHead(200, { 'content-length': clip.length, 'content-type': 'video/mp4' });
  if (requests.filter((r) => r.path === '/clip.mp4').length === 1) {
    // The first fetch gets half the file, then the connection drops.
    response.write(clip.subarray(0, Math.floor(clip.length / 2)), () => response.socket?.destroy());
    return;
  }
  response.end(clip);
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-ingest-'));
  server = createServer(serveSource);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  [farm, receiver, clipPath] = await Promise.all([
    joinSharedFarm('ingest'),
    startWebhookReceiver(),
    makeClip({
      seconds: 3,
      width: 640,
      height: 360,
      fps: 25,
      audio: true,
      path: join(tmpdir(), `kino-ingest-clip-${process.pid}.mp4`),
    }),
  ]);
  clip = await readFile(clipPath);
  receiver.secret = await registerWebhook(farm, receiver.url);
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await farm?.stop();
  await receiver?.close();
  await rm(workDir, { recursive: true, force: true });
  await rm(clipPath, { force: true });
});

test('a source whose connection drops mid-body is resumed with Range, stored byte for byte, and plays every frame', async () => {
  const { videoID } = await farm.kino.videos.ingest(farm.orgId, farm.envId, {
    url: `${baseUrl}/clip.mp4`,
    videoQuality: 'standard',
    allowPublicAccess: true,
    compressionRatio: 'ultrafast',
  });
  const transcoding = await farm.kino.videos.get(farm.orgId, videoID);
  assert.deepEqual(transcoding.status, { ready: false, transcoding: true, failed: false }, 'transcoding at once');
  assert.equal(transcoding.name, 'clip.mp4', "the default name is the URL's last path segment");

  await farm.waitForStatus(videoID, 'ready', 180_000);
  const sourceRequests = requests.filter((r) => r.path === '/clip.mp4');
  assert.equal(sourceRequests.length, 2, 'one cut fetch, one resume');
  assert.equal(sourceRequests[0]!.range, undefined);
  assert.match(sourceRequests[1]!.range ?? '', /^bytes=[1-9]\d*-$/, 'the resume asks for the rest only');

  const stored = await farm.storage.get(objectKeys.ingestSource(farm.orgId, farm.envId, videoID));
  assert.ok(stored?.equals(clip), 'the stored source is the served file, byte for byte');

  const dir = join(workDir, videoID);
  await farm.downloadVideo(videoID, dir);
  const sourceFrames = await countFramesInFile(clipPath);
  assert.equal(
    await countDecodedFrames(join(dir, 'hls', 'master.m3u8')),
    sourceFrames,
    'the ladder plays first to last frame',
  );
});

test('a URL answering 404 ends failed with the named reason in the details and the failed webhook', async () => {
  const { videoID } = await farm.kino.videos.ingest(farm.orgId, farm.envId, {
    url: `${baseUrl}/missing.mp4`,
    videoQuality: 'standard',
    allowPublicAccess: false,
  });
  const failed = await farm.waitForStatus(videoID, 'failed', 60_000);
  assert.equal(failed.failureReason, 'source_http_error: the source URL answered 404');

  const hook = await waitFor(
    `the failed webhook of ${videoID}`,
    () =>
      receiver.received.find(
        (w) => w.payload.videoId === videoID && w.payload.event === 'video.processing.failed' && !w.refused,
      ),
    { timeoutMs: 60_000 },
  );
  assert.ok(hook.signatureValid);
  assert.equal(hook.payload.data.failureReason, failed.failureReason);
  // Final at once: one request, one attempt, no probe.
  assert.equal(requests.filter((r) => r.path === '/missing.mp4').length, 1);
  assert.deepEqual(await farm.scheduledActivities(videoID).then((s) => [s.fetchIngestSource, s.probeSource]), [
    1,
    undefined,
  ]);
  assert.equal(
    await farm.storage.head(objectKeys.ingestSource(farm.orgId, farm.envId, videoID)),
    undefined,
    'nothing stored',
  );
});

test('the API refuses a URL that is not http(s) with invalid_url', async () => {
  const response = await fetch(`${farm.apiUrl}/${farm.orgId}/environments/${farm.envId}/videos/ingest`, {
    method: 'POST',
    headers: { 'x-api-key': farm.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'ftp://example.com/a.mp4', videoQuality: 'standard', allowPublicAccess: true }),
  });
  assert.equal(response.status, 400);
  assert.equal(((await response.json()) as { code: string }).code, 'invalid_url');
});
