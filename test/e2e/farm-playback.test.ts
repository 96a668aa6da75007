// From upload to playback through the whole system: a clip sent through the SDK is transcoded by
// the real farm (API, Temporal, orchestrator, an encode node), then played from a delivery node:
// every variant of the public and of the signed master decodes with the source's frame count, the
// default thumbnail resizes, and the segments served become rows in chDB. The farm is the dev
// stack's launcher with delivery and analytics: the API's DELIVERY_URL names the delivery node, which
// gets its keys from the API's JWKS. Camera and broadcast files (MPEG-TS, AVCHD's M2TS, MXF) play
// the same way.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ClickHouseHttp } from '@kino/analytics';
import { waitFor } from '@kino/dev';
import type { Kino, UploadContentType } from '@kino/sdk';
import {
  countDecodedFrames,
  countFramesInFile,
  lumaStats,
  makeClip,
  packetTimes,
  streamField,
} from '@kino/test/support/media';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';
import { variantUrls } from '../delivery/harness.ts';

let farm: FarmTenant;
let workDir: string;
let clip: Buffer;
let sourceFrames: number;
/** The SDK on the API, whose signed URLs point at the farm's delivery node. */
let playbackApi: Kino;
let deliveryUrl: string;
let clickhouse: ClickHouseHttp;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-farm-playback-'));
  let clipPath: string;
  [farm, clipPath] = await Promise.all([
    joinSharedFarm('farm-playback'),
    // 854x480 on `standard`: a 360p and a 480p rendition.
    makeClip({ seconds: 4, width: 854, height: 480, fps: 24, audio: true, path: join(workDir, 'clip.mp4') }),
  ]);
  clip = await readFile(clipPath);
  sourceFrames = await countFramesInFile(clipPath);
  deliveryUrl = farm.deliveryUrl!;
  clickhouse = farm.clickhouse!;
  playbackApi = farm.kino;
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

/** Upload, process (public or private) and wait for `ready`, all through the SDK. */
async function transcode(
  allowPublicAccess: boolean,
  file: { body: Buffer; filename: string; contentType: UploadContentType } = {
    body: clip,
    filename: 'clip.mp4',
    contentType: 'video/mp4',
  },
): Promise<string> {
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: file.filename,
    fileSize: file.body.length,
    contentType: file.contentType,
  });
  await farm.kino.uploads.putFile(ticket, file.body, file.contentType);
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess,
    videoName: allowPublicAccess ? 'public clip' : 'private clip',
    compressionRatio: 'ultrafast',
  });
  await farm.waitForStatus(videoID, 'ready', 180_000);
  return videoID;
}

test('a transcoded public video plays from every variant of its public master, and its thumbnail resizes', async () => {
  const videoId = await transcode(true);
  const masterUrl = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
  const master = await fetch(masterUrl);
  assert.equal(master.status, 200);
  const variants = variantUrls(masterUrl, await master.text());
  assert.deepEqual(
    variants.map((v) => new URL(v).pathname.split('/').pop()),
    ['video-360p.m3u8', 'video-480p.m3u8'],
  );
  for (const variant of variants) assert.equal(await countDecodedFrames(variant), sourceFrames, variant);
  assert.equal(await countDecodedFrames(`${deliveryUrl}/${videoId}/master.m3u8`), sourceFrames);

  const details = await farm.kino.videos.get(farm.orgId, videoId);
  assert.equal(details.sourceDynamicRange, 'sdr');
  assert.ok(details.thumbnailUrl, 'a ready video has a thumbnail');
  const thumbnail = await fetch(`${deliveryUrl}${new URL(details.thumbnailUrl).pathname}`);
  assert.equal(thumbnail.status, 200);
  assert.equal(thumbnail.headers.get('content-type'), 'image/jpeg');

  const rows = await waitFor('segment rows for the public video', async () => {
    const [row] = await clickhouse.query<{ n: number }>(
      `SELECT count() AS n FROM segment_deliveries FINAL WHERE video_id = '${videoId}'`,
    );
    // Shipped in batches: wait for the condition itself, not for the first batch.
    return row && row.n >= 2 ? row.n : undefined;
  });
  assert.ok(rows >= 2, `${rows} rows`);
});

test('a transcoded private video plays only through its signed URL, every variant frame by frame', async () => {
  const videoId = await transcode(false);
  assert.equal((await fetch(`${deliveryUrl}/${videoId}/master.m3u8`)).status, 401);
  const signed = await playbackApi.playback.signedUrl(farm.orgId, videoId, { expiration: '15m' });
  assert.equal(signed.expires_in, 900);
  const masterUrl = signed.signed_url;
  assert.ok(masterUrl.startsWith(`${deliveryUrl}/v1/private/${videoId}/master.m3u8?token=`));
  const variants = variantUrls(masterUrl, await (await fetch(masterUrl)).text());
  assert.equal(variants.length, 2);
  for (const variant of variants) assert.equal(await countDecodedFrames(variant), sourceFrames, variant);

  // Its thumbnailUrl works as given (an image token), and that token opens images only.
  const { thumbnailUrl } = await playbackApi.videos.get(farm.orgId, videoId);
  assert.ok(thumbnailUrl, 'a ready video has a thumbnail');
  assert.ok(thumbnailUrl.startsWith(`${deliveryUrl}/t/${videoId}/`), thumbnailUrl);
  const thumbnail = await fetch(thumbnailUrl);
  assert.equal(thumbnail.status, 200);
  assert.equal(thumbnail.headers.get('content-type'), 'image/jpeg');
  assert.equal((await fetch(`${deliveryUrl}${new URL(thumbnailUrl).pathname}`)).status, 401, 'not without its token');
  const imageToken = new URL(thumbnailUrl).searchParams.get('token');
  const withImageToken = await fetch(`${deliveryUrl}/v1/private/${videoId}/master.m3u8?token=${imageToken}`);
  assert.equal(withImageToken.status, 403);
  assert.equal(((await withImageToken.json()) as { code: string }).code, 'token_scope_mismatch');
});

/**
 * The reference tone map, made with ffmpeg straight from the source (its own tags): BT.2408's
 * reference white as SDR white, Möbius to a 1000 cd/m² peak, BT.709 clipped to its gamut
 * (docs/decisions/encoding.md, "HDR sources"), at the rendition's size.
 */
const referenceToneMap =
  'scale=640:360,zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,' +
  'tonemap=tonemap=mobius:param=0.5:desat=0:peak=4.926108,zscale=t=bt709,format=gbrp16le,zscale=m=bt709:r=tv';

test('an HDR10 and an HLG source: the H.264 ladder is SDR BT.709, its picture the reference tone map; HEVC stays HDR', async () => {
  const sources = await Promise.all(
    (['hdr10', 'hlg'] as const).map((hdr) =>
      makeClip({ seconds: 2, width: 640, height: 360, fps: 30, audio: false, hdr, path: join(workDir, `${hdr}.mp4`) }),
    ),
  );
  const videoIds = await Promise.all(
    sources.map(async (path) => {
      const body = await readFile(path);
      const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
        filename: path.split('/').at(-1)!,
        fileSize: body.length,
        contentType: 'video/mp4',
      });
      await farm.kino.uploads.putFile(ticket, body, 'video/mp4');
      const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
        storagePath: ticket.bucketPath,
        videoQuality: 'standard',
        allowPublicAccess: true,
        compressionRatio: 'ultrafast',
        additionalCodecs: ['hevc'],
      });
      await farm.waitForStatus(videoID, 'ready', 180_000);
      return videoID;
    }),
  );
  for (const [k, source] of sources.entries()) {
    const hdr = (['hdr10', 'hlg'] as const)[k]!;
    const masterUrl = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoIds[k]}/master.m3u8`;
    const master = await (await fetch(masterUrl)).text();
    // A 360p source on `standard`: one rung, in H.264 (SDR) and in HEVC (the source's HDR).
    const ranges = Object.fromEntries(
      [...master.matchAll(/VIDEO-RANGE=(\w+)[^\n]*\n(\S+)/g)].map(([, range, uri]) => [uri!.split('/').pop(), range]),
    );
    assert.deepEqual(ranges, { 'video-360p.m3u8': 'SDR', 'video-360p-hevc.m3u8': { hdr10: 'PQ', hlg: 'HLG' }[hdr] });
    const [sdr, hevc] = ['video-360p.m3u8', 'video-360p-hevc.m3u8'].map((name) =>
      variantUrls(masterUrl, master).find((url) => url.endsWith(`/${name}`)),
    );
    // Within 2 code values of 219 on the mean, 4 on the 10th and 90th percentiles: the encode's own
    // loss (its 500 kbps against the lossless reference moves them by under 0.2 here); the source's
    // code values passed through untouched are 9 to 40 away (PQ's and HLG's curves are not SDR's).
    const [rendition, reference] = await Promise.all([lumaStats(sdr!), lumaStats(source, referenceToneMap)]);
    assert.ok(
      Math.abs(rendition.mean - reference.mean) <= 2,
      `${source} mean: ${rendition.mean} against ${reference.mean}`,
    );
    for (const at of ['p10', 'p90'] as const)
      assert.ok(
        Math.abs(rendition[at] - reference[at]) <= 4,
        `${source} ${at}: ${rendition[at]} against ${reference[at]}`,
      );
    const colour = (variant: string) =>
      Promise.all(
        ['pix_fmt', 'color_primaries', 'color_transfer', 'color_space'].map((field) =>
          streamField(variant, 'v:0', field),
        ),
      );
    assert.deepEqual(await colour(sdr!), ['yuv420p', 'bt709', 'bt709', 'bt709'], source);
    const transfer = { hdr10: 'smpte2084', hlg: 'arib-std-b67' }[hdr];
    assert.deepEqual(await colour(hevc!), ['yuv420p10le', 'bt2020', transfer, 'bt2020nc'], `${source} in HEVC`);
    assert.equal(await streamField(hevc!, 'v:0', 'profile'), 'Main 10');
    const details = await farm.kino.videos.get(farm.orgId, videoIds[k]!);
    assert.equal(details.sourceDynamicRange, hdr, 'details say the source is HDR');
    // The default thumbnail (the frame at a tenth of the video: frame 6 of 60) is SDR too.
    const thumbnail = join(workDir, `${hdr}-thumbnail.jpg`);
    await writeFile(thumbnail, Buffer.from(await (await fetch(details.thumbnailUrl!)).arrayBuffer()));
    const [poster, frame] = await Promise.all([
      lumaStats(thumbnail),
      lumaStats(source, `trim=start_frame=6:end_frame=7,${referenceToneMap}`),
    ]);
    assert.ok(Math.abs(poster.mean - frame.mean) <= 2, `${source} thumbnail: ${poster.mean} against ${frame.mean}`);
    assert.deepEqual(
      details.encodings.map((e) => [e.key, e.pixelFormat]),
      [
        ['360p', 'yuv420p'],
        ['360p-hevc', 'yuv420p10b'],
      ],
    );
  }
});

/** Width and height from a JPEG's start-of-frame marker. */
function jpegSize(jpeg: Buffer): { width: number; height: number } {
  let at = 2;
  while (at < jpeg.length) {
    const marker = jpeg[at + 1]!;
    const length = jpeg.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xc3)
      return { height: jpeg.readUInt16BE(at + 5), width: jpeg.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  throw new Error('no start-of-frame marker');
}

test('a custom thumbnail is made on a node at any timestamp, served in any size, and can become the default', async () => {
  const videoId = await transcode(false);
  const { thumbnailUrl: before } = await playbackApi.videos.get(farm.orgId, videoId);
  assert.ok(before);
  const defaultBefore = Buffer.from(await (await fetch(before)).arrayBuffer());

  const custom = await playbackApi.videos.createThumbnail(farm.orgId, videoId, { timestamp: 3.5 });
  assert.equal(custom.timestamp, 3.5);
  const url = new URL(custom.url);
  assert.equal(`${url.origin}${url.pathname}`, `${deliveryUrl}/t/${videoId}/c3500/640x360.jpg`);
  assert.ok(url.searchParams.get('token'), 'a private video: an image token');
  const image = await fetch(url);
  assert.equal(image.status, 200);
  assert.equal(image.headers.get('content-type'), 'image/jpeg');
  assert.deepEqual(jpegSize(Buffer.from(await image.arrayBuffer())), { width: 640, height: 360 });
  const small = await fetch(custom.url.replace('/640x360.jpg', '/200x100.jpg'));
  assert.deepEqual(jpegSize(Buffer.from(await small.arrayBuffer())), { width: 200, height: 100 });
  // Not the default yet: the default thumbnail is unchanged.
  assert.deepEqual(Buffer.from(await (await fetch(before)).arrayBuffer()), defaultBefore);

  await playbackApi.videos.createThumbnail(farm.orgId, videoId, { timestamp: 3.5, setAsDefault: true });
  const { thumbnailUrl: after } = await playbackApi.videos.get(farm.orgId, videoId);
  assert.ok(after);
  const defaultAfter = await waitFor('the new default thumbnail on delivery', async () => {
    const bytes = Buffer.from(await (await fetch(after)).arrayBuffer());
    return bytes.equals(defaultBefore) ? undefined : bytes;
  });
  assert.deepEqual(jpegSize(defaultAfter), { width: 640, height: 360 });

  // Bad inputs: a timestamp outside the video (400), a video that is not ready (409).
  await assert.rejects(
    playbackApi.videos.createThumbnail(farm.orgId, videoId, { timestamp: 4.5 }),
    (error: { status?: number; code?: string }) => {
      assert.deepEqual([error.status, error.code], [400, 'invalid_timestamp']);
      return true;
    },
  );
  await farm.db.updateTable('videos').set({ status: 'transcoding' }).where('id', '=', videoId).execute();
  try {
    await assert.rejects(
      playbackApi.videos.createThumbnail(farm.orgId, videoId, { timestamp: 1 }),
      (error: { status?: number; code?: string }) => {
        assert.deepEqual([error.status, error.code], [409, 'video_not_ready']);
        return true;
      },
    );
  } finally {
    await farm.db.updateTable('videos').set({ status: 'ready' }).where('id', '=', videoId).execute();
  }
});

/** Camera and broadcast files as their devices fill them: 3 s at 25 fps, a tone to the end. */
const cameraFiles: { filename: string; contentType: UploadContentType; args: string[] }[] = [
  // Broadcast MPEG-TS: MPEG-2 video and MPEG-1 Layer II audio in 188-byte packets.
  {
    filename: 'news.ts',
    contentType: 'video/mp2t',
    args: ['-c:v', 'mpeg2video', '-b:v', '2M', '-c:a', 'mp2', '-b:a', '192k', '-f', 'mpegts'],
  },
  // AVCHD: H.264 and AC-3 in M2TS's 192-byte packets (a 4-byte timestamp before each).
  {
    filename: '00001.MTS',
    contentType: 'video/mp2t',
    args: [
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'ac3'],
      ...['-f', 'mpegts', '-mpegts_m2ts_mode', '1'],
    ],
  },
  // Professional cameras: MPEG-2 video and 16-bit PCM at 48 kHz in MXF.
  {
    filename: 'A001C001.mxf',
    contentType: 'application/mxf',
    args: ['-c:v', 'mpeg2video', '-b:v', '4M', '-c:a', 'pcm_s16le', '-f', 'mxf'],
  },
];

test('camera and broadcast files (MPEG-TS, AVCHD M2TS, MXF) become videos that play every frame, their sound to the end', async () => {
  const seconds = 3;
  const frames = seconds * 25;
  const videoIds = await Promise.all(
    cameraFiles.map(async ({ filename, contentType, args }) => {
      const path = join(workDir, filename);
      await promisify(execFile)('ffmpeg', [
        ...['-hide_banner', '-loglevel', 'error', '-y'],
        ...['-f', 'lavfi', '-i', `testsrc2=size=320x240:rate=25:duration=${seconds}`],
        ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
        ...args,
        path,
      ]);
      return transcode(true, { body: await readFile(path), filename, contentType });
    }),
  );
  for (const [k, videoId] of videoIds.entries()) {
    const { filename } = cameraFiles[k]!;
    const details = await farm.kino.videos.get(farm.orgId, videoId);
    // An MPEG-TS file's timestamps start where its recording did (1.4 s here): the duration is the picture's.
    assert.ok(Math.abs(details.durationSeconds - seconds) < 0.1, `${filename}: ${details.durationSeconds} s`);
    const master = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
    assert.equal(await countDecodedFrames(master), frames, `${filename}: every frame decodes`);
    assert.equal(await streamField(master, 'a:0', 'codec_name'), 'aac', `${filename}: its sound, in AAC`);
    // The sound runs to the video's end (its last AAC frame of 1024 samples may reach past it).
    const aacFrameSeconds = 1024 / 48_000;
    const audioEnd = (await packetTimes(master, 'a:0')).at(-1)! + aacFrameSeconds;
    assert.ok(
      audioEnd >= details.durationSeconds - 1e-3 && audioEnd <= details.durationSeconds + aacFrameSeconds + 1e-3,
      `${filename}: sound to ${audioEnd} s of ${details.durationSeconds}`,
    );
  }
});
