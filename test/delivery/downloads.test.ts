// MP4 downloads against real processes (PostgreSQL, SeaweedFS, chDB, the API, `kino delivery`):
// one rendition as one file, assembled from the stored fMP4 init and segments, read by ffprobe and
// decoded frame by frame by ffmpeg straight from the delivery host (over HTTP, with the ranges
// ffmpeg asks for), with Range, HEAD, ETag and tokens as for playback.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@kino/dev';
import { parseInitSegment } from '@kino/ffmpeg';
import { contentTypeForHlsFile, hlsInitName, hlsPlaylistName, objectKeys } from '@kino/proto/contract';
import { createHlsFixture, type HlsFixture } from '@kino/test/support/hls-fixture';
import { countDecodedFrames } from '@kino/test/support/media';
import { signedUrlOf, startDeliveryStack, type DeliveryStack } from './harness.ts';

const run = promisify(execFile);

let stack: DeliveryStack;
let pub: HlsFixture;
let priv: HlsFixture;
let base: string;
const seconds = 13;

beforeAll(async () => {
  stack = await startDeliveryStack({ analytics: 'chdb' });
  base = stack.delivery.url;
  // 13 s: three segments (6 + 6 + 1), so a download has parts of several sizes to cross.
  const fixture = (allowPublicAccess: boolean) =>
    createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess,
      orgId: stack.orgId,
      envId: stack.envId,
      seconds,
      ladder: [
        { width: 320, height: 240 },
        { width: 256, height: 144 },
      ],
    });
  pub = await fixture(true);
  priv = await fixture(false);
});

afterAll(async () => {
  await stack?.stop();
});

const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
const tokenOf = async (videoId: string) => new URL(await signedUrlOf(stack, videoId)).searchParams.get('token')!;

async function probeDuration(url: string): Promise<{ format: number; video: number }> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration:stream=codec_type,duration',
    '-of',
    'json',
    url,
  ]);
  const json = JSON.parse(stdout) as {
    format: { duration: string };
    streams: { codec_type: string; duration: string }[];
  };
  return {
    format: Number(json.format.duration),
    video: Number(json.streams.find((s) => s.codec_type === 'video')!.duration),
  };
}

describe('MP4 downloads', () => {
  test('every rendition on every family: one attachment ffprobe reads in full and ffmpeg decodes frame by frame', async () => {
    const token = await tokenOf(priv.videoId);
    const cases = [
      ...pub.renditions.flatMap((r) => [
        {
          url: `${base}/v1/public/${pub.orgId}/${pub.envId}/${pub.videoId}/video-${r.key}.mp4`,
          video: pub,
          key: r.key,
        },
        { url: `${base}/${pub.videoId}/${r.key}.mp4`, video: pub, key: r.key },
      ]),
      { url: `${base}/v1/private/${priv.videoId}/video-144p.mp4?token=${token}`, video: priv, key: '144p' },
      { url: `${base}/${priv.videoId}/240p.mp4?token=${token}`, video: priv, key: '240p' },
    ];
    for (const { url, video, key } of cases) {
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assert.equal(response.headers.get('content-type'), 'video/mp4');
      assert.equal(response.headers.get('content-disposition'), `attachment; filename="${video.videoId}-${key}.mp4"`);
      assert.equal(response.headers.get('accept-ranges'), 'bytes');
      const body = await bytesOf(response);
      assert.equal(Number(response.headers.get('content-length')), body.length);
      // Nothing is stored for it: the file is the init (grown by its mehd box) and the segments.
      const height = Number.parseInt(key, 10);
      const stored = [...video.objects].filter(
        ([k]) => k.includes(`/hls/${height}p/`) && (k.endsWith('.m4s') || k.endsWith('init.mp4')),
      );
      assert.equal(body.length, stored.reduce((sum, [, data]) => sum + data.length, 0) + 16);

      const duration = await probeDuration(url);
      assert.ok(Math.abs(duration.video - seconds) < 0.05, `${url}: video lasts ${duration.video} s`);
      assert.ok(Math.abs(duration.format - seconds) < 0.1, `${url}: file lasts ${duration.format} s`);
      assert.equal(await countDecodedFrames(url), video.frameCount, url);
    }
  });

  test('Range requests return the bytes of the full download, across parts; suffix ranges; 416 past the end', async () => {
    const url = `${base}/${pub.videoId}/240p.mp4`;
    const full = await bytesOf(await fetch(url));
    const init = pub.objects.get(`videos/${pub.videoId}/hls/240p/init.mp4`)!.length + 16;
    const seg0 = pub.objects.get(`videos/${pub.videoId}/hls/240p/seg-00000.m4s`)!.length;
    const ranges: [number, number][] = [
      [0, 99],
      [init - 10, init + 10], // init into the first segment
      [init + seg0 - 5, init + seg0 + 4], // across a segment boundary
      [5, full.length - 1], // nearly everything, across every part
      [full.length - 1, full.length - 1],
    ];
    for (const [start, end] of ranges) {
      const response = await fetch(url, { headers: { Range: `bytes=${start}-${end}` } });
      assert.equal(response.status, 206, `${start}-${end}`);
      assert.equal(response.headers.get('content-range'), `bytes ${start}-${end}/${full.length}`);
      assert.deepEqual(await bytesOf(response), full.subarray(start, end + 1), `${start}-${end}`);
    }
    const suffix = await fetch(url, { headers: { Range: 'bytes=-1000' } });
    assert.equal(suffix.status, 206);
    assert.deepEqual(await bytesOf(suffix), full.subarray(full.length - 1000));
    const past = await fetch(url, { headers: { Range: `bytes=${full.length}-` } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), `bytes */${full.length}`);
    await past.arrayBuffer();
  });

  test('HEAD gives the length without a body; the ETag answers 304', async () => {
    const url = `${base}/v1/public/${pub.orgId}/${pub.envId}/${pub.videoId}/video-144p.mp4`;
    const full = await bytesOf(await fetch(url));
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers.get('content-length')), full.length);
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const etag = head.headers.get('etag')!;
    assert.match(etag, /^"mp4-/);
    const again = await fetch(url, { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
  });

  test('a private video needs its token on every family; unknown renditions are 404', async () => {
    const token = await tokenOf(priv.videoId);
    for (const path of [
      `/v1/private/${priv.videoId}/video-240p.mp4`,
      `/v1/public/${priv.orgId}/${priv.envId}/${priv.videoId}/video-240p.mp4`,
      `/${priv.videoId}/240p.mp4`,
    ]) {
      const refused = await fetch(`${base}${path}`);
      assert.equal(refused.status, 401, path);
      assert.equal(((await refused.json()) as { code: string }).code, 'token_required');
      const wrong = await fetch(`${base}${path}?token=${await tokenOf(pub.videoId)}`);
      assert.ok(wrong.status === 401 || wrong.status === 403, `${path}: ${wrong.status}`);
      await wrong.arrayBuffer();
      const allowed = await fetch(`${base}${path}?token=${token}`, { method: 'HEAD' });
      assert.equal(allowed.status, 200, path);
      assert.equal(allowed.headers.get('cache-control'), 'private, max-age=31536000, immutable');
    }
    const missing = await fetch(`${base}/${pub.videoId}/1080p.mp4`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, 'rendition_not_found');
  });

  test('a rendition in another codec (240p-av1) plays in every family as 240p does, but is no download', async () => {
    const video = await createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess: true,
      orgId: stack.orgId,
      envId: stack.envId,
      seconds: 4,
      ladder: [{ width: 320, height: 240 }],
    });
    // A real AV1 rendition of the fixture's source (2 s: one segment), stored in its own folder
    // beside the H.264 rung, and its row, as the farm writes them.
    const key = '240p-av1';
    const out = join(stack.services.dir, video.videoId, key);
    mkdirSync(out, { recursive: true });
    await run('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-t',
      '2',
      '-i',
      join(stack.services.dir, video.videoId, 'source.mp4'),
      '-vf',
      'scale=320:240',
      '-c:v',
      'libsvtav1',
      '-preset',
      '12',
      '-an',
      '-f',
      'hls',
      '-hls_time',
      '6',
      '-hls_playlist_type',
      'vod',
      '-hls_segment_type',
      'fmp4',
      '-hls_fmp4_init_filename',
      hlsInitName,
      '-hls_segment_filename',
      join(out, 'seg-%05d.m4s'),
      join(out, hlsPlaylistName),
    ]);
    for (const name of readdirSync(out)) {
      await stack.storage.put(
        `${objectKeys.renditionDir(video.videoId, key)}/${name}`,
        readFileSync(join(out, name)),
        contentTypeForHlsFile(name),
      );
    }
    const init = readFileSync(join(out, hlsInitName));
    await stack.db
      .insertInto('renditions')
      .values({
        video_id: video.videoId,
        key,
        width: 320,
        height: 240,
        short_edge_pixels: 240,
        short_edge_is_width: false,
        video_bitrate_kbps: 200,
        audio_bitrate_kbps: 0,
        audio_format: '',
        frame_rate: 24,
        pixel_format: 'yuv420p',
        rate_control_mode: 'variableBitrate',
        two_pass: false,
        compression_ratio: 'ultrafast',
        video_codec: 'av1',
        codecs: parseInitSegment(init).codecs,
        bandwidth: 200_000,
        segment_count: 1,
      })
      .execute();

    const publicBase = `${base}/v1/public/${video.orgId}/${video.envId}/${video.videoId}`;
    const directBase = `${base}/${video.videoId}`;
    const served = async (url: string) => {
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      return bytesOf(response);
    };
    assert.deepEqual(await served(`${publicBase}/video-${key}/init.m4s`), init);
    assert.deepEqual(await served(`${directBase}/${key}/init.mp4`), init);
    assert.match(parseInitSegment(init).codecs, /^av01\./);
    const segment = readFileSync(join(out, 'seg-00000.m4s'));
    assert.deepEqual(await served(`${publicBase}/video-${key}/seg-00000.m4s`), segment);
    assert.deepEqual(await served(`${directBase}/${key}/seg-00000.m4s`), segment);
    assert.match(
      (await served(`${publicBase}/video-${key}.m3u8`)).toString('utf8'),
      new RegExp(`^video-${key}/seg-00000\\.m4s$`, 'm'),
    );
    assert.match(
      (await served(`${directBase}/${key}.m3u8`)).toString('utf8'),
      new RegExp(`^${key}/seg-00000\\.m4s$`, 'm'),
    );
    // The lowest init (video/init.m4s) stays the H.264 rung's, whatever else shares its height.
    assert.deepEqual(
      await served(`${publicBase}/video/init.m4s`),
      video.objects.get(objectKeys.renditionInit(video.videoId, '240p')),
    );

    for (const url of [`${directBase}/${key}.mp4`, `${publicBase}/video-${key}.mp4`]) {
      const refused = await fetch(url);
      assert.equal(refused.status, 404, url);
      assert.equal(((await refused.json()) as { code: string }).code, 'rendition_not_found');
    }
    assert.equal(
      (await fetch(`${directBase}/240p.mp4`, { method: 'HEAD' })).status,
      200,
      'the H.264 rung still downloads',
    );
  });

  test('a download logs one segment row per segment it sends, as playback does', async () => {
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
    const url = `${base}/${video.videoId}/240p.mp4`;
    const full = await bytesOf(await fetch(url));
    // A HEAD and a range inside the init send no segment's first byte.
    await fetch(url, { method: 'HEAD' });
    await (await fetch(url, { headers: { Range: 'bytes=0-99' } })).arrayBuffer();
    assert.ok(full.length > 0);
    const rows = await waitFor('two segment rows in chDB', async () => {
      const found = await stack.clickhouse.query<Record<string, unknown>>(
        `SELECT segment_index, bytes FROM segment_deliveries FINAL WHERE video_id = '${video.videoId}' ORDER BY segment_index`,
      );
      return found.length >= 2 && found;
    });
    const sizes = [0, 1].map((i) => video.objects.get(`videos/${video.videoId}/hls/240p/seg-0000${i}.m4s`)!.length);
    assert.deepEqual(
      rows.map((r) => [r.segment_index, r.bytes]),
      [
        [0, sizes[0]],
        [1, sizes[1]],
      ],
    );
  });
});
