// Delivery end to end against real processes: PostgreSQL, SeaweedFS, chDB behind `kino analytics-store`,
// the API (JWKS, signed URLs) and `kino delivery`, playing ffmpeg-made fMP4 HLS ladders.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KeyEncryption } from '@kino/database';
import { PlaybackKeyring, mintPlaybackToken } from '@kino/database/playback-keys';
import { waitFor } from '@kino/dev';
import { hlsContentTypes, objectKeys } from '@kino/proto/contract';
import { thumbnailFilter } from '@kino/ffmpeg';
import { createHlsFixture, type HlsFixture } from '@kino/test/support/hls-fixture';
import { countDecodedFrames } from '@kino/test/support/media';
import { sendRawHttp, startSlowLoris } from '@kino/test/support/raw-http';
import { requestSignedUrl, signedUrlOf, startDeliveryStack, variantUrls, type DeliveryStack } from './harness.ts';

const run = promisify(execFile);

let stack: DeliveryStack;
let pub: HlsFixture;
let priv: HlsFixture;
let base: string;

beforeAll(async () => {
  stack = await startDeliveryStack({ analytics: 'chdb' });
  base = stack.delivery.url;
  const fixture = (allowPublicAccess: boolean) =>
    createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess,
      orgId: stack.orgId,
      envId: stack.envId,
    });
  pub = await fixture(true);
  priv = await fixture(false);
});

afterAll(async () => {
  await stack?.stop();
});

const publicBase = (f: HlsFixture) => `${base}/v1/public/${f.orgId}/${f.envId}/${f.videoId}`;
const stored = (f: HlsFixture, key: string) => {
  const data = f.objects.get(key);
  assert.ok(data, `fixture has ${key}`);
  return data;
};
const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
const errorOf = async (response: Response) =>
  (await response.json()) as { title: string; status: number; detail: string; code: string };
const uris = (playlist: string) => [
  ...playlist.split('\n').filter((line) => line.trim() && !line.startsWith('#')),
  ...[...playlist.matchAll(/URI="([^"]+)"/g)].map((m) => m[1]!),
];

describe('public playback: every path shape', () => {
  test('the master playlist points at the public rendition playlists', async () => {
    const response = await fetch(`${publicBase(pub)}/master.m3u8`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/vnd.apple.mpegurl');
    assert.equal(
      response.headers.get('cache-control'),
      'public, no-cache',
      'a master is revalidated on every load: it names caption tracks that change',
    );
    assert.ok(response.headers.get('etag'));
    const text = await response.text();
    assert.deepEqual(uris(text), ['video-240p.m3u8', 'video-360p.m3u8']);
    assert.match(text, /RESOLUTION=640x360/);
  });

  test('rendition playlists point at per-rendition init and segments; each returns the stored bytes', async () => {
    for (const rendition of pub.renditions) {
      const playlist = await (await fetch(`${publicBase(pub)}/video-${rendition.key}.m3u8`)).text();
      const expected = [
        ...Array.from(
          { length: rendition.segmentCount },
          (_, i) => `video-${rendition.key}/seg-${String(i).padStart(5, '0')}.m4s`,
        ),
        `video-${rendition.key}/init.m4s`,
      ];
      assert.deepEqual(uris(playlist), expected);
      const init = await fetch(`${publicBase(pub)}/video-${rendition.key}/init.m4s`);
      assert.equal(init.headers.get('content-type'), 'video/mp4');
      assert.equal(init.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.deepEqual(await bytesOf(init), stored(pub, objectKeys.renditionInit(pub.videoId, rendition.height)));
      for (let i = 0; i < rendition.segmentCount; i++) {
        const segment = await fetch(`${publicBase(pub)}/video-${rendition.key}/seg-${String(i).padStart(5, '0')}.m4s`);
        assert.equal(segment.status, 200);
        assert.equal(segment.headers.get('content-type'), 'video/iso.segment');
        assert.deepEqual(await bytesOf(segment), stored(pub, objectKeys.segment(pub.videoId, rendition.height, i)));
      }
    }
  });

  test("video/init.m4s is the lowest rendition's init segment", async () => {
    const response = await fetch(`${publicBase(pub)}/video/init.m4s`);
    assert.equal(response.status, 200);
    assert.deepEqual(await bytesOf(response), stored(pub, objectKeys.renditionInit(pub.videoId, 240)));
  });

  test('direct patterns: master, {quality}.m3u8, {quality}/init.mp4, {quality}/{segment} (.m4s and .ts names)', async () => {
    const direct = `${base}/${pub.videoId}`;
    const master = await (await fetch(`${direct}/master.m3u8`)).text();
    assert.deepEqual(uris(master), ['240p.m3u8', '360p.m3u8']);
    const playlist = await (await fetch(`${direct}/360p.m3u8`)).text();
    assert.deepEqual(uris(playlist), ['360p/seg-00000.m4s', '360p/seg-00001.m4s', '360p/init.mp4']);
    assert.deepEqual(
      await bytesOf(await fetch(`${direct}/360p/init.mp4`)),
      stored(pub, objectKeys.renditionInit(pub.videoId, 360)),
    );
    const segment = stored(pub, objectKeys.segment(pub.videoId, 360, 1));
    for (const name of ['seg-00001.m4s', '1.ts', 'seg-1.ts']) {
      const response = await fetch(`${direct}/360p/${name}`);
      assert.equal(response.status, 200, name);
      assert.deepEqual(await bytesOf(response), segment, name);
    }
  });

  test('ffmpeg decodes every variant of the public and the direct master, frame by frame', async () => {
    for (const masterUrl of [`${publicBase(pub)}/master.m3u8`, `${base}/${pub.videoId}/master.m3u8`]) {
      const variants = variantUrls(masterUrl, await (await fetch(masterUrl)).text());
      assert.equal(variants.length, 2);
      for (const variant of variants) assert.equal(await countDecodedFrames(variant), pub.frameCount, variant);
    }
  });
});

describe('HTTP semantics', () => {
  const segmentUrl = () => `${publicBase(pub)}/video-360p/seg-00000.m4s`;
  const segment = () => stored(pub, objectKeys.segment(pub.videoId, 360, 0));

  test('Range: 206 with Content-Range, suffix ranges, 416 past the end', async () => {
    const partial = await fetch(segmentUrl(), { headers: { Range: 'bytes=100-199' } });
    assert.equal(partial.status, 206);
    assert.equal(partial.headers.get('content-range'), `bytes 100-199/${segment().length}`);
    assert.equal(partial.headers.get('content-length'), '100');
    assert.deepEqual(await bytesOf(partial), segment().subarray(100, 200));
    const suffix = await fetch(segmentUrl(), { headers: { Range: 'bytes=-50' } });
    assert.equal(suffix.status, 206);
    assert.deepEqual(await bytesOf(suffix), segment().subarray(segment().length - 50));
    const past = await fetch(segmentUrl(), { headers: { Range: `bytes=${segment().length}-` } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), `bytes */${segment().length}`);
    await past.arrayBuffer();
  });

  test('HEAD answers the headers without a body; ETag + If-None-Match is 304', async () => {
    const head = await fetch(segmentUrl(), { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(segment().length));
    assert.equal(head.headers.get('accept-ranges'), 'bytes');
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const etag = head.headers.get('etag')!;
    assert.match(etag, /^"[\w-]+"$/);
    const again = await fetch(segmentUrl(), { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('etag'), etag);
    const playlistUrl = `${publicBase(pub)}/master.m3u8`;
    const playlistEtag = (await fetch(playlistUrl, { method: 'HEAD' })).headers.get('etag')!;
    assert.equal((await fetch(playlistUrl, { headers: { 'If-None-Match': `W/${playlistEtag}` } })).status, 304);
  });

  test("CORS: any origin, the spec's methods, headers and max age; preflights answered 204", async () => {
    const preflight = await fetch(segmentUrl(), {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://player.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'range',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    // POST for the players' beacons (POST /v1/beacons) sent as JSON from another origin.
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, OPTIONS');
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'Range, Content-Type');
    assert.equal(preflight.headers.get('access-control-max-age'), '3600');
    const get = await fetch(segmentUrl(), { headers: { Origin: 'https://player.example' } });
    assert.equal(get.headers.get('access-control-allow-origin'), '*');
    assert.equal(get.headers.get('access-control-expose-headers'), 'Content-Length, Content-Range, ETag');
    await get.arrayBuffer();
    const post = await fetch(segmentUrl(), { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS');
    await post.arrayBuffer();
  });

  test('requests the HTTP parser refuses answer in the envelope: 431 oversized URL or headers, 400 malformed', async () => {
    const envelope = (body: string) =>
      JSON.parse(body) as { status: number; code: string; title: string; detail: string };
    const longUrl = await sendRawHttp(
      base,
      `GET /v1/public/x/y/z/master.m3u8?pad=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    assert.match(longUrl.statusLine, /^HTTP\/1\.1 431 /);
    assert.equal(envelope(longUrl.body).code, 'headers_too_large');
    const bigHeader = await sendRawHttp(
      base,
      `GET /v1/public/x/y/z/master.m3u8 HTTP/1.1\r\nHost: x\r\nX-Pad: ${'b'.repeat(20_000)}\r\n\r\n`,
    );
    assert.equal(envelope(bigHeader.body).status, 431);
    const malformed = await sendRawHttp(base, 'GET / HTTP/1.1\r\nHost x\r\n\r\n');
    assert.match(malformed.statusLine, /^HTTP\/1\.1 400 /);
    const body = envelope(malformed.body);
    assert.equal(body.code, 'malformed_request');
    assert.equal(body.title, 'Bad Request');
    assert.ok(body.detail);
  });

  test('slow loris and oversized bodies against the API and delivery: slow connections closed, others served, memory bounded', async () => {
    const rssOf = (pid: number) =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
    const targets: Array<{ name: string; url: string; pid: number; probe: string; headers: Record<string, string> }> = [
      // (This stack runs no Temporal, so /health answers 503: an authenticated listing is the normal request.)
      {
        name: 'api',
        url: stack.apiUrl,
        pid: stack.apiProcess.child.pid!,
        probe: `${stack.apiUrl}/${stack.orgId}/environments`,
        headers: { 'x-api-key': stack.apiKey },
      },
      {
        name: 'delivery',
        url: base,
        pid: stack.delivery.process.child.pid!,
        probe: `${publicBase(pub)}/master.m3u8`,
        headers: {},
      },
    ];
    const connections = 300;
    for (const target of targets) {
      const rssBefore = rssOf(target.pid);
      const attack = await startSlowLoris(target.url, connections);
      // Every slow connection is held open by the server now; a normal client is still served.
      assert.equal(attack.open(), connections);
      const served = await fetch(target.probe, { headers: target.headers });
      assert.equal(served.status, 200, `${target.name} served a normal request during the attack`);
      await served.arrayBuffer();
      // The headers timeout (infra/src/http-server-limits.ts) closes each one, answering 408 in the envelope.
      const answers = await attack.closed;
      assert.ok(
        answers.every((line) => line === '' || /^HTTP\/1\.1 408 /.test(line)),
        `${target.name}: ${[...new Set(answers)].join(', ')}`,
      );
      assert.ok(
        answers.some((line) => /^HTTP\/1\.1 408 /.test(line)),
        `${target.name} answered 408`,
      );
      const grewMb = (rssOf(target.pid) - rssBefore) / 2 ** 20;
      assert.ok(grewMb < 64, `${target.name} grew ${grewMb.toFixed(1)} MB under ${connections} slow connections`);
    }
    // Oversized bodies are refused without being kept: 413 from the API, 405 from delivery (no bodies).
    const big = Buffer.alloc(8 * 2 ** 20, 'a');
    const apiBody = await fetch(`${stack.apiUrl}/${stack.orgId}/environments/${stack.envId}/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json' },
      body: big,
    }).catch((error: unknown) => error as Error);
    // The API may close the connection before the client has sent everything: a refusal either way.
    if (apiBody instanceof Response) {
      assert.equal(apiBody.status, 413);
      assert.equal((await errorOf(apiBody)).code, 'payload_too_large');
    }
    const deliveryBody = await fetch(`${publicBase(pub)}/master.m3u8`, { method: 'POST', body: big }).catch(
      (error: unknown) => error as Error,
    );
    if (deliveryBody instanceof Response) {
      assert.equal(deliveryBody.status, 405);
      await deliveryBody.arrayBuffer();
    }
    for (const target of targets)
      assert.equal((await fetch(target.probe, { headers: target.headers })).status, 200, `${target.name} still serves`);
  });

  test('low-latency parameters are validated and do not change a VOD playlist', async () => {
    const url = `${publicBase(pub)}/video-240p.m3u8`;
    const plain = await (await fetch(url)).text();
    assert.equal(await (await fetch(`${url}?_HLS_msn=1&_HLS_part=0&_HLS_skip=YES&bootstrap=true`)).text(), plain);
    for (const query of ['_HLS_msn=x', '_HLS_part=1', '_HLS_skip=maybe', 'bootstrap=2']) {
      const response = await fetch(`${url}?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal((await errorOf(response)).code, 'invalid_playback_parameters', query);
    }
  });

  test('unknown paths, videos, renditions and segments are 404 with the error envelope', async () => {
    const cases: [string, string][] = [
      [`${base}/nothing/here/at/all.txt`, 'not_found'],
      [`${base}/v1/public/${pub.orgId}/${pub.envId}/vid_doesnotexist0000/master.m3u8`, 'video_not_found'],
      [`${base}/v1/public/org_other/${pub.envId}/${pub.videoId}/master.m3u8`, 'video_not_found'],
      [`${base}/v1/public/${pub.orgId}/env_other/${pub.videoId}/master.m3u8`, 'video_not_found'],
      [`${publicBase(pub)}/video-720p.m3u8`, 'rendition_not_found'],
      [`${publicBase(pub)}/video-360p/seg-00099.m4s`, 'segment_not_found'],
    ];
    for (const [url, code] of cases) {
      const response = await fetch(url);
      assert.equal(response.status, 404, url);
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      const error = await errorOf(response);
      assert.equal(error.code, code, url);
      assert.equal(error.title, 'Not Found');
      assert.equal(error.status, 404);
      assert.ok(error.detail);
    }
  });

  test('a video that is not ready plays nowhere; a deleted one stops playing within seconds', async () => {
    const video = await createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess: true,
      orgId: stack.orgId,
      envId: stack.envId,
      seconds: 2,
      ladder: [{ width: 320, height: 240 }],
    });
    const url = `${publicBase(video)}/master.m3u8`;
    assert.equal((await fetch(url)).status, 200);
    await stack.db.updateTable('videos').set({ deleted_at: new Date() }).where('id', '=', video.videoId).execute();
    // Delivery re-reads a video's row at most every DELIVERY_METADATA_TTL_MS (2 s): well within 5 s.
    await waitFor('the deleted video to 404', async () => (await fetch(url)).status === 404, { timeoutMs: 5_000 });
    await stack.db
      .updateTable('videos')
      .set({ deleted_at: null, status: 'transcoding' })
      .where('id', '=', video.videoId)
      .execute();
    await waitFor(
      'the transcoding video to 404',
      async () => (await fetch(`${base}/${video.videoId}/240p/init.mp4`)).status === 404,
      { timeoutMs: 5_000 },
    );
  });
});

describe('a video changed through the API (PATCH)', () => {
  test('made private, it stops playing without a token within the metadata bound and plays with one; made public again, it plays without', async () => {
    const video = await createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess: true,
      orgId: stack.orgId,
      envId: stack.envId,
      seconds: 2,
      ladder: [{ width: 320, height: 240 }],
    });
    const patch = async (body: Record<string, unknown>) => {
      const response = await fetch(`${stack.apiUrl}/${stack.orgId}/videos/${video.videoId}`, {
        method: 'PATCH',
        headers: { 'X-Api-Key': stack.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as { body: { allowPublicAccess: boolean } };
      assert.equal(response.status, 200, JSON.stringify(json));
      return json.body;
    };
    const urls = [`${publicBase(video)}/master.m3u8`, `${base}/${video.videoId}/240p/init.mp4`];
    for (const url of urls) assert.equal((await fetch(url)).status, 200, url);

    assert.equal((await patch({ allowPublicAccess: false })).allowPublicAccess, false);
    // Delivery re-reads a video's row at most every DELIVERY_METADATA_TTL_MS (2 s): well within 5 s.
    for (const url of urls) {
      await waitFor(`${url} to ask for a token`, async () => (await fetch(url)).status === 401, { timeoutMs: 5_000 });
    }
    const token = new URL(await signedUrlOf(stack, video.videoId)).searchParams.get('token')!;
    for (const url of urls) assert.equal((await fetch(`${url}?token=${token}`)).status, 200, url);

    await patch({ allowPublicAccess: true });
    for (const url of urls) {
      await waitFor(`${url} to play without a token`, async () => (await fetch(url)).status === 200, {
        timeoutMs: 5_000,
      });
    }
  });
});

describe('thumbnails', () => {
  const probeSize = async (data: Buffer, name: string) => {
    const path = join(stack.services.dir, name);
    writeFileSync(path, data);
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'stream=codec_name,width,height',
      '-of',
      'csv=p=0',
      path,
    ]);
    return stdout.trim();
  };

  test('a JPEG of exactly the asked size, made once and kept in storage', async () => {
    for (const [width, height] of [
      [320, 180],
      [17, 333],
      [100, 100],
    ] as const) {
      const response = await fetch(`${base}/t/${pub.videoId}/${width}x${height}.jpg`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'image/jpeg');
      assert.equal(await probeSize(await bytesOf(response), `t-${width}x${height}.jpg`), `mjpeg,${width},${height}`);
    }
    const first = await fetch(`${base}/t/${pub.videoId}/320x180.jpg`);
    const second = await fetch(`${base}/t/${pub.videoId}/320x180.jpg`);
    assert.equal(first.headers.get('etag'), second.headers.get('etag'));
    const derived = await stack.storage.list(`videos/${pub.videoId}/thumbs/derived/`);
    assert.equal(derived.filter((key) => key.endsWith('/320x180.jpg')).length, 1);
  });

  test('sizes outside 16..3840 are 400; unknown videos 404; private videos need a token', async () => {
    for (const size of ['15x100', '100x3841', '0x0']) {
      const response = await fetch(`${base}/t/${pub.videoId}/${size}.jpg`);
      assert.equal(response.status, 400, size);
      assert.equal((await errorOf(response)).code, 'invalid_thumbnail_size');
    }
    assert.equal((await fetch(`${base}/t/vid_unknown00000000/64x64.jpg`)).status, 404);
    assert.equal((await fetch(`${base}/t/${priv.videoId}/64x64.jpg`)).status, 401);
    const token = new URL(await signedUrlOf(stack, priv.videoId)).searchParams.get('token')!;
    assert.equal((await fetch(`${base}/t/${priv.videoId}/64x64.jpg?token=${token}`)).status, 200);
  });
});

describe('pictures of any moment', () => {
  /** A frame as a PNG file: `ref` from the source by frame number, through the thumbnail's own filter. */
  const sourceFrame = async (n: number, width: number, height: number, path: string) => {
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-i', pub.sourcePath],
      ...['-vf', `select=eq(n\\,${n}),${thumbnailFilter(width, height)}`, '-frames:v', '1', path],
    ]);
    return path;
  };
  /** PSNR of two pictures of one size (inf when identical). */
  const psnr = async (a: string, b: string) => {
    const { stderr } = await run('ffmpeg', ['-hide_banner', '-i', a, '-i', b, '-lavfi', 'psnr', '-f', 'null', '-']);
    const average = /average:(inf|[\d.]+)/.exec(stderr)?.[1];
    assert.ok(average, stderr);
    return average === 'inf' ? Infinity : Number(average);
  };

  test('?time= is the frame at that moment, exact to the frame, as PNG, JPEG or WebP; made once and kept', async () => {
    // The fixture is 24 fps: frame 36 is the picture from 1.5 s to 1.5417 s.
    const [width, height] = [320, 180];
    const response = await fetch(`${base}/t/${pub.videoId}/${width}x${height}.png?time=1.5`);
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'image/png');
    const got = join(stack.services.dir, 'moment.png');
    writeFileSync(got, await bytesOf(response));
    const dir = stack.services.dir;
    const exact = await psnr(got, await sourceFrame(36, width, height, join(dir, 'f36.png')));
    for (const neighbour of [35, 37]) {
      const other = await psnr(got, await sourceFrame(neighbour, width, height, join(dir, `f${neighbour}.png`)));
      assert.ok(exact > other + 3, `frame 36 (${exact} dB) and not ${neighbour} (${other} dB)`);
    }
    assert.ok(exact >= 45, `the source's frame 36, at ${exact} dB`);
    for (const [format, type, codec] of [
      ['jpg', 'image/jpeg', 'mjpeg'],
      ['webp', 'image/webp', 'webp'],
    ] as const) {
      const picture = await fetch(`${base}/t/${pub.videoId}/${width}x${height}.${format}?time=1.5`);
      assert.equal(picture.status, 200, format);
      assert.equal(picture.headers.get('content-type'), type);
      const path = join(dir, `moment.${format}`);
      writeFileSync(path, await bytesOf(picture));
      const { stdout } = await run('ffprobe', [
        ...['-v', 'error', '-show_entries', 'stream=codec_name,width,height', '-of', 'csv=p=0', path],
      ]);
      assert.equal(stdout.trim(), `${codec},${width},${height}`);
    }
    const again = await fetch(`${base}/t/${pub.videoId}/${width}x${height}.png?time=1.5`);
    assert.equal(again.headers.get('etag'), response.headers.get('etag'), 'kept, not made again');
    const kept = await stack.storage.list(`videos/${pub.videoId}/thumbs/derived/at/1500/`);
    assert.deepEqual(kept.map((key) => key.split('/').pop()).sort(), ['320x180.jpg', '320x180.png', '320x180.webp']);
  });

  test('a time that is not seconds, at or past the end, or on a custom thumbnail is 400 naming time; private videos need a token', async () => {
    for (const query of ['time=abc', 'time=-1', 'time=1.2345', 'time=7', 'time=99']) {
      const response = await fetch(`${base}/t/${pub.videoId}/64x64.jpg?${query}`);
      assert.equal(response.status, 400, query);
      const error = (await response.json()) as { code: string; errors: Array<{ location: string }> };
      assert.equal(error.code, 'invalid_playback_parameters', query);
      assert.deepEqual(
        error.errors.map((e) => e.location),
        ['query.time'],
        query,
      );
    }
    assert.equal((await fetch(`${base}/t/${pub.videoId}/c1/64x64.jpg?time=1`)).status, 400);
    const misspelt = await fetch(`${base}/t/${pub.videoId}/64x64.jpg?tme=1`);
    assert.match(JSON.stringify(await misspelt.json()), /did you mean `time`/);
    assert.equal((await fetch(`${base}/t/${priv.videoId}/64x64.jpg?time=1`)).status, 401);
    const token = new URL(await signedUrlOf(stack, priv.videoId)).searchParams.get('token')!;
    assert.equal((await fetch(`${base}/t/${priv.videoId}/64x64.jpg?time=1&token=${token}`)).status, 200);
  });
});

describe('animated previews', () => {
  /** An animated WebP's canvas and frame count, read from its RIFF chunks (VP8X, one ANMF per frame). */
  const webpAnimation = (data: Buffer) => {
    assert.equal(data.toString('latin1', 0, 4), 'RIFF');
    assert.equal(data.toString('latin1', 8, 12), 'WEBP');
    let width = 0;
    let height = 0;
    let frames = 0;
    for (let at = 12; at + 8 <= data.length;) {
      const fourcc = data.toString('latin1', at, at + 4);
      const size = data.readUInt32LE(at + 4);
      if (fourcc === 'VP8X') {
        width = data.readUIntLE(at + 12, 3) + 1;
        height = data.readUIntLE(at + 15, 3) + 1;
      }
      if (fourcc === 'ANMF') frames += 1;
      at += 8 + size + (size % 2);
    }
    return { width, height, frames };
  };

  test('animated.webp and animated.gif: the stretch asked for, at its width and rate, in every family', async () => {
    const webp = await fetch(`${publicBase(pub)}/animated.webp?start=1&end=3&width=200&fps=10`);
    assert.equal(webp.status, 200, await webp.clone().text());
    assert.equal(webp.headers.get('content-type'), 'image/webp');
    // 640x360 at 200 wide: 112 high (even); 2 s at 10 fps.
    assert.deepEqual(webpAnimation(await bytesOf(webp)), { width: 200, height: 112, frames: 20 });

    const gif = await fetch(`${base}/${pub.videoId}/animated.gif?start=2&end=3.5&fps=12`);
    assert.equal(gif.status, 200, await gif.clone().text());
    assert.equal(gif.headers.get('content-type'), 'image/gif');
    const path = join(stack.services.dir, 'preview.gif');
    writeFileSync(path, await bytesOf(gif));
    const { stdout } = await run('ffprobe', [
      ...['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_name,width,height,nb_read_frames'],
      ...['-of', 'csv=p=0', path],
    ]);
    assert.equal(stdout.trim(), 'gif,320,180,18', 'the default width, 1.5 s at 12 fps');

    // Defaults: 0 to 5 s, 320 wide, 15 fps; a private video's needs its token.
    assert.equal((await fetch(`${base}/v1/private/${priv.videoId}/animated.webp`)).status, 401);
    const signed = new URL(await signedUrlOf(stack, priv.videoId));
    const token = signed.searchParams.get('token')!;
    const privateWebp = await fetch(`${base}/v1/private/${priv.videoId}/animated.webp?token=${token}`);
    assert.equal(privateWebp.status, 200);
    assert.deepEqual(webpAnimation(await bytesOf(privateWebp)), { width: 320, height: 180, frames: 75 });
  });

  test('a stretch longer than 10 s, out of the video, too wide or too fast is 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['start=0&end=10.5', 'query.end'],
      ['start=3&end=2', 'query.end'],
      ['start=7', 'query.start'],
      ['end=8', 'query.end'],
      ['width=641', 'query.width'],
      ['width=abc', 'query.width'],
      ['fps=0', 'query.fps'],
      ['fps=31', 'query.fps'],
      ['time=1', 'query.time'],
    ] as const) {
      const response = await fetch(`${base}/${pub.videoId}/animated.webp?${query}`);
      assert.equal(response.status, 400, query);
      const error = (await response.json()) as { code: string; errors: Array<{ location: string }> };
      assert.equal(error.code, 'invalid_playback_parameters', query);
      assert.deepEqual(
        error.errors.map((e) => e.location),
        [field],
        query,
      );
    }
    assert.equal((await fetch(`${base}/${pub.videoId}/master.m3u8?start=1`)).status, 400, 'not a playlist parameter');
  });
});

describe('private playback', () => {
  test('signed-url: default 1h, every allowed expiration, invalid_expiration, video_not_found', async () => {
    const { status, json } = await requestSignedUrl(stack, priv.videoId);
    assert.equal(status, 200);
    const body = json.body as { signed_url: string; expires_in: number };
    assert.equal(body.expires_in, 3600);
    assert.match(
      body.signed_url,
      new RegExp(`^${base}/v1/private/${priv.videoId}/master\\.m3u8\\?token=[\\w-]+\\.[\\w-]+\\.[\\w-]+$`),
    );
    const seconds = { '15m': 900, '30m': 1800, '1h': 3600, '4h': 14400, '24h': 86400, '7d': 604800 };
    for (const [expiration, expected] of Object.entries(seconds)) {
      const answer = await requestSignedUrl(stack, priv.videoId, { expiration });
      assert.equal((answer.json.body as { expires_in: number }).expires_in, expected);
      const token = new URL((answer.json.body as { signed_url: string }).signed_url).searchParams.get('token')!;
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
      assert.equal(claims.iss, 'kino');
      assert.equal(claims.sub, priv.videoId);
      assert.equal(claims.aud, priv.videoId);
      assert.equal((claims.exp as number) - (claims.iat as number), expected);
    }
    for (const expiration of ['8d', '2h', '60', '']) {
      const answer = await requestSignedUrl(stack, priv.videoId, { expiration });
      assert.equal(answer.status, 400, expiration);
      assert.equal(answer.json.code, 'invalid_expiration', expiration);
    }
    const missing = await requestSignedUrl(stack, 'vid_doesnotexist0000');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.code, 'video_not_found');
    const badDomains = await requestSignedUrl(stack, priv.videoId, { domains: 'https://a.example/' });
    assert.equal(badDomains.status, 400);
    assert.equal(badDomains.json.code, 'invalid_domains');
    const jwks = (await (await fetch(`${stack.apiUrl}/.well-known/jwks.json`)).json()) as {
      keys: Record<string, unknown>[];
    };
    assert.ok(jwks.keys.length >= 1);
    assert.ok(jwks.keys.every((key) => key.kty === 'EC' && key.crv === 'P-256' && key.kid && !('d' in key)));
  });

  test('the signed master plays: every variant, init and segment URI carries the token; ffmpeg decodes each variant', async () => {
    const signed = await signedUrlOf(stack, priv.videoId);
    const token = new URL(signed).searchParams.get('token')!;
    const response = await fetch(signed);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'private, no-cache');
    const master = await response.text();
    const variants = variantUrls(signed, master);
    assert.equal(variants.length, 2);
    for (const variant of variants) {
      assert.equal(new URL(variant).searchParams.get('token'), token);
      const playlist = await (await fetch(variant)).text();
      const inner = uris(playlist);
      assert.equal(inner.length, 3);
      for (const uri of inner) assert.ok(uri.endsWith(`?token=${token}`), uri);
      const segment = await fetch(new URL(inner[0]!, variant));
      assert.equal(segment.status, 200);
      assert.equal(segment.headers.get('cache-control'), 'private, max-age=31536000, immutable');
      await segment.arrayBuffer();
      assert.equal(await countDecodedFrames(variant), priv.frameCount, variant);
    }
  });

  test('a private video needs its token on every path family', async () => {
    const token = new URL(await signedUrlOf(stack, priv.videoId)).searchParams.get('token')!;
    const paths = [
      `/v1/private/${priv.videoId}/master.m3u8`,
      `/v1/private/${priv.videoId}/video-240p/seg-00000.m4s`,
      `/v1/public/${priv.orgId}/${priv.envId}/${priv.videoId}/master.m3u8`,
      `/${priv.videoId}/master.m3u8`,
      `/${priv.videoId}/240p/init.mp4`,
    ];
    for (const path of paths) {
      const refused = await fetch(`${base}${path}`);
      assert.equal(refused.status, 401, path);
      assert.equal((await errorOf(refused)).code, 'token_required');
      const allowed = await fetch(`${base}${path}?token=${token}`);
      assert.equal(allowed.status, 200, path);
      await allowed.arrayBuffer();
    }
  });

  test('a misspelt token parameter is 400 naming it and the parameter it meant, not 401', async () => {
    const token = new URL(await signedUrlOf(stack, priv.videoId)).searchParams.get('token')!;
    for (const path of [`/v1/private/${priv.videoId}/master.m3u8`, `/t/${priv.videoId}/64x64.jpg`]) {
      const response = await fetch(`${base}${path}?tokne=${token}`);
      assert.equal(response.status, 400, path);
      const error = (await response.json()) as { code: string; errors: unknown };
      assert.equal(error.code, 'invalid_playback_parameters');
      assert.deepEqual(error.errors, [
        { message: 'tokne is not a playback parameter; did you mean `token`?', location: 'query.tokne', value: token },
      ]);
    }
  });

  test('a token for one video never opens another; expired and tampered tokens are 401', async () => {
    const other = await createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess: false,
      orgId: stack.orgId,
      envId: stack.envId,
      seconds: 2,
      ladder: [{ width: 320, height: 240 }],
    });
    const tokenForOther = new URL(await signedUrlOf(stack, other.videoId)).searchParams.get('token')!;
    const mismatch = await fetch(`${base}/v1/private/${priv.videoId}/master.m3u8?token=${tokenForOther}`);
    assert.equal(mismatch.status, 403);
    assert.equal((await errorOf(mismatch)).code, 'token_video_mismatch');
    const segmentWithOther = await fetch(
      `${base}/v1/private/${priv.videoId}/video-240p/seg-00000.m4s?token=${tokenForOther}`,
    );
    assert.equal(segmentWithOther.status, 403);
    await segmentWithOther.arrayBuffer();

    // Signed with the control plane's own key, an hour ago, for ten minutes.
    const key = await new PlaybackKeyring(stack.db, new KeyEncryption(stack.keyEncryptionKey)).activeKey();
    const expired = await mintPlaybackToken(key, {
      videoId: priv.videoId,
      expiresInSeconds: 600,
      issuedAt: Math.floor(Date.now() / 1000) - 3600,
    });
    const expiredAnswer = await fetch(`${base}/v1/private/${priv.videoId}/master.m3u8?token=${expired}`);
    assert.equal(expiredAnswer.status, 401);
    assert.equal((await errorOf(expiredAnswer)).code, 'token_expired');

    const good = new URL(await signedUrlOf(stack, priv.videoId)).searchParams.get('token')!;
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const longer = Buffer.from(JSON.stringify({ ...claims, exp: (claims.exp as number) + 86400 * 365 })).toString(
      'base64url',
    );
    for (const tampered of [
      `${header}.${longer}.${signature}`,
      `${header}.${payload}.${signature.slice(0, -4)}AAAA`,
      'garbage',
    ]) {
      const answer = await fetch(`${base}/v1/private/${priv.videoId}/master.m3u8?token=${tampered}`);
      assert.equal(answer.status, 401, tampered);
      const error = await errorOf(answer);
      assert.equal(error.code, 'invalid_token');
      assert.match(error.detail, /not valid/);
    }
  });

  test('a token bound to domains plays only from those pages (Origin, else Referer)', async () => {
    const signed = await signedUrlOf(stack, priv.videoId, { domains: 'player.example,*.example.org' });
    const tries: [Record<string, string>, number][] = [
      [{ Origin: 'https://player.example' }, 200],
      [{ Referer: 'https://player.example/watch/1' }, 200],
      [{ Origin: 'https://cdn.example.org' }, 200],
      [{ Origin: 'https://www.player.example' }, 403],
      [{ Origin: 'https://example.org' }, 403],
      [{ Referer: 'https://evil.example/' }, 403],
      [{}, 403],
    ];
    for (const [headers, status] of tries) {
      const response = await fetch(signed, { headers });
      assert.equal(response.status, status, JSON.stringify(headers));
      if (status === 403) assert.equal((await errorOf(response)).code, 'domain_not_allowed');
      else await response.arrayBuffer();
    }
  });
});

describe('segment logs in chDB', () => {
  test('each media segment served becomes one row; init, playlists, HEAD, 304 and resumed ranges do not', async () => {
    const video = await createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess: true,
      orgId: stack.orgId,
      envId: stack.envId,
      seconds: 8,
      ladder: [{ width: 320, height: 240 }],
    });
    const segmentUrl = (i: number) => `${publicBase(video)}/video-240p/seg-${String(i).padStart(5, '0')}.m4s`;
    await (await fetch(`${publicBase(video)}/master.m3u8`)).text();
    await (await fetch(`${publicBase(video)}/video-240p/init.m4s`)).arrayBuffer();
    const sizes: number[] = [];
    for (let i = 0; i < 2; i++) sizes.push((await bytesOf(await fetch(segmentUrl(i)))).length);
    const etag = (await fetch(segmentUrl(0), { method: 'HEAD' })).headers.get('etag')!;
    assert.equal((await fetch(segmentUrl(0), { headers: { 'If-None-Match': etag } })).status, 304);
    await (await fetch(segmentUrl(0), { headers: { Range: 'bytes=10-' } })).arrayBuffer();
    await (await fetch(segmentUrl(1), { headers: { Range: 'bytes=0-99' } })).arrayBuffer();
    const token = new URL(await signedUrlOf(stack, video.videoId)).searchParams.get('token')!;
    await (await fetch(`${base}/v1/private/${video.videoId}/video-240p/seg-00000.m4s?token=${token}`)).arrayBuffer();

    const rows = await waitFor('four segment rows in chDB', async () => {
      const found = await stack.clickhouse.query<Record<string, unknown>>(
        `SELECT org_id, env_id, rendition_height, segment_index, bytes, toString(access) AS access, node_id
         FROM segment_deliveries FINAL WHERE video_id = '${video.videoId}' ORDER BY served_at, segment_index, access, bytes`,
      );
      return found.length >= 4 && found;
    });
    assert.equal(rows.length, 4);
    const summary = rows.map((r) => `${r.segment_index}:${r.bytes}:${r.access}`).sort();
    assert.deepEqual(
      summary,
      [`0:${sizes[0]}:private`, `0:${sizes[0]}:public`, `1:100:public`, `1:${sizes[1]}:public`].sort(),
    );
    for (const row of rows) {
      assert.equal(row.org_id, video.orgId);
      assert.equal(row.env_id, video.envId);
      assert.equal(row.rendition_height, 240);
      assert.equal(row.node_id, 'test-node');
    }
  });

  test("a bootstrap player's three parts of the first segment are one row of segment 0: its first part's (issue 55)", async () => {
    const video = await createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess: true,
      orgId: stack.orgId,
      envId: stack.envId,
      seconds: 8,
      ladder: [{ width: 320, height: 240 }],
    });
    // Delivery serves what storage holds under the parts' keys: three slices of the 6 s segment, as the farm's join is their concatenation.
    const whole = stored(video, objectKeys.segment(video.videoId, '240p', 0));
    const cuts = [0, whole.length >> 2, whole.length >> 1, whole.length];
    for (let k = 0; k < 3; k++)
      await stack.storage.put(
        objectKeys.bootstrapSegment(video.videoId, '240p', k),
        whole.subarray(cuts[k], cuts[k + 1]),
        hlsContentTypes.segment,
      );
    const partUrl = (k: number) => `${publicBase(video)}/video-240p/boot-${k}.m4s`;
    for (let k = 0; k < 3; k++) assert.equal((await bytesOf(await fetch(partUrl(k)))).length, cuts[k + 1]! - cuts[k]!);
    // Then segment 1, so the rows are complete once its row is in.
    const next = (await bytesOf(await fetch(`${publicBase(video)}/video-240p/seg-00001.m4s`))).length;

    const rows = await waitFor('the row of segment 1 in chDB', async () => {
      const found = await stack.clickhouse.query<{ segment_index: number; bytes: number }>(
        `SELECT segment_index, bytes FROM segment_deliveries FINAL WHERE video_id = '${video.videoId}' ORDER BY segment_index`,
      );
      return found.some((r) => Number(r.segment_index) === 1) && found;
    });
    assert.deepEqual(
      rows.map((r) => [Number(r.segment_index), Number(r.bytes)]),
      [
        [0, cuts[1]],
        [1, next],
      ],
    );
  });
});

/**
 * A proxy in front of S3 that counts the GETs of each key and can hold an object's tail back: it
 * sends the first half, then waits for `release` (the rest, or a cut connection). It forwards the
 * request as it came, Host included, so storage checks the signature delivery made for the proxy.
 */
async function startCountingS3Proxy(target: string) {
  const gets = new Map<string, number>();
  const holds = new Map<string, Promise<'send' | 'cut'>>();
  const releases: ((how: 'send' | 'cut') => void)[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, target);
    const key = decodeURIComponent(url.pathname).split('/').slice(2).join('/');
    if (req.method === 'GET') gets.set(key, (gets.get(key) ?? 0) + 1);
    const upstream = httpRequest(url, { method: req.method, headers: req.headers }, async (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      const hold = holds.get(key);
      if (!hold || answer.statusCode !== 200) {
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of answer) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      res.write(body.subarray(0, body.length >> 1));
      if ((await hold) === 'cut') res.destroy();
      else res.end(body.subarray(body.length >> 1));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    gets: (key: string) => gets.get(key) ?? 0,
    /** Holds the key's tail back until the returned function is called (or the proxy is closed: cut). */
    hold(key: string): (how: 'send' | 'cut') => void {
      let release!: (how: 'send' | 'cut') => void;
      holds.set(key, new Promise((resolve) => (release = resolve)));
      releases.push(release);
      return (how) => {
        holds.delete(key);
        release(how);
      };
    },
    close: () => {
      for (const release of releases) release('cut');
      return new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections());
    },
  };
}

/** A response's body, read until its first bytes are in; `rest()` reads the remainder. */
async function readHead(response: Response) {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  const first = await reader.read();
  if (!first.done) chunks.push(first.value);
  return {
    headBytes: chunks.reduce((n, c) => n + c.length, 0),
    async rest(): Promise<Buffer> {
      for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
      return Buffer.concat(chunks);
    },
  };
}

describe('cache misses (a node reading S3 through a counting proxy)', () => {
  const viewers = 6;
  let proxy: Awaited<ReturnType<typeof startCountingS3Proxy>>;
  let node: string;
  beforeAll(async () => {
    proxy = await startCountingS3Proxy(stack.services.storage.S3_ENDPOINT!);
    node = (
      await stack.startAnotherDelivery('proxied-node', { S3_ENDPOINT: proxy.url, DELIVERY_LOG_SHIP_INTERVAL_MS: '200' })
    ).url;
  });
  afterAll(async () => {
    await proxy?.close();
  });
  const segment = (index: number) => {
    const rendition = pub.renditions[0]!;
    return {
      key: objectKeys.segment(pub.videoId, rendition.height, index),
      url: `${node}/v1/public/${pub.orgId}/${pub.envId}/${pub.videoId}/video-${rendition.key}/seg-${String(index).padStart(5, '0')}.m4s`,
    };
  };

  test('viewers of one uncached segment make one S3 read, get their first bytes before its tail has left S3, and the same bytes; each is logged once', async () => {
    const { key, url } = segment(0);
    const release = proxy.hold(key);
    let heads: Awaited<ReturnType<typeof readHead>>[];
    try {
      // Every viewer has its head while the proxy still holds the tail, so all of them are in flight at once.
      heads = await Promise.all(Array.from({ length: viewers }, async () => readHead(await fetch(url))));
      assert.ok(heads.every((head) => head.headBytes > 0));
      assert.equal(proxy.gets(key), 1, 'one GET at S3 for all the viewers');
    } finally {
      release('send');
    }
    const bodies = await Promise.all(heads.map((head) => head.rest()));
    for (const body of bodies) assert.deepEqual(body, stored(pub, key));
    assert.equal(proxy.gets(key), 1);

    const rows = await waitFor(`${viewers} rows of the proxied node`, async () => {
      const found = await stack.clickhouse.query<{ n: number }>(
        `SELECT count() AS n FROM segment_deliveries FINAL WHERE video_id = '${pub.videoId}' AND node_id = 'proxied-node' AND segment_index = 0`,
      );
      return Number(found[0]!.n) >= viewers && Number(found[0]!.n);
    });
    assert.equal(rows, viewers, 'one row per viewer');
  });

  test("an S3 read cut midway truncates its viewers' bodies (never a complete-looking one) and caches nothing", async () => {
    const { key, url } = segment(1);
    const release = proxy.hold(key);
    const heads = await Promise.all(Array.from({ length: 2 }, async () => readHead(await fetch(url))));
    release('cut');
    for (const head of heads) await assert.rejects(head.rest());
    const again = await fetch(url);
    assert.equal(again.status, 200);
    assert.deepEqual(await bytesOf(again), stored(pub, key), 'the next viewer gets the whole segment');
    assert.equal(proxy.gets(key), 2, 'read from S3 again: nothing partial was cached');
  });
});
