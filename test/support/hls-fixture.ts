// A ready video without the farm: a real fMP4 HLS ladder made with ffmpeg, uploaded at the storage
// layout the farm writes (objectKeys, @kino/proto/contract), plus the `videos` and `renditions`
// rows that say it is ready. Delivery tests play it; the farm's own output is tested end to end
// elsewhere.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { newId, type Storage } from '@kino/infra';
import { contentTypeForHlsFile, objectKeys } from '@kino/proto/contract';
import type { Db } from '@kino/database';
import { makeClip } from './media.ts';

const run = promisify(execFile);

export interface FixtureRendition {
  key: string;
  width: number;
  height: number;
  segmentCount: number;
}

export interface HlsFixture {
  videoId: string;
  orgId: string;
  envId: string;
  /** Frames in every rendition (the clip's). */
  frameCount: number;
  renditions: FixtureRendition[];
  thumbnailKey: string;
  /** Every object uploaded but the source, key → bytes. */
  objects: Map<string, Buffer>;
  /** The source on this machine; stored at the video's storage_path too, as an upload is. */
  sourcePath: string;
}

export interface HlsFixtureOptions {
  db: Db;
  storage: Pick<Storage, 'put'>;
  workDir: string;
  allowPublicAccess: boolean;
  orgId?: string;
  envId?: string;
  seconds?: number;
  fps?: number;
  /** Landscape sizes, largest first; the key is the short edge (height). */
  ladder?: { width: number; height: number }[];
  /** Caps the video bitrate (realistic segment sizes, for benchmarks); default: ultrafast's own. */
  videoBitrateKbps?: number;
}

/** An organization and environment to hang fixtures on. */
export async function createTenancy(db: Db): Promise<{ orgId: string; envId: string }> {
  const orgId = newId('org');
  const envId = newId('env');
  await db.insertInto('organizations').values({ id: orgId, name: 'Delivery test org' }).execute();
  await db.insertInto('environments').values({ id: envId, org_id: orgId, name: 'test' }).execute();
  return { orgId, envId };
}

export async function createHlsFixture({
  db,
  storage,
  workDir,
  allowPublicAccess,
  seconds = 7,
  fps = 24,
  ladder = [
    { width: 640, height: 360 },
    { width: 426, height: 240 },
  ],
  videoBitrateKbps,
  ...tenancy
}: HlsFixtureOptions): Promise<HlsFixture> {
  const { orgId, envId } =
    tenancy.orgId && tenancy.envId ? { orgId: tenancy.orgId, envId: tenancy.envId } : await createTenancy(db);
  const videoId = newId('vid');
  const dir = join(workDir, videoId);
  mkdirSync(dir, { recursive: true });
  const [top] = ladder;
  const clip = await makeClip({ seconds, width: top!.width, height: top!.height, fps, path: join(dir, 'source.mp4') });
  const objects = new Map<string, Buffer>();
  const renditions: FixtureRendition[] = [];

  for (const { width, height } of ladder) {
    const out = join(dir, `${height}p`);
    mkdirSync(out, { recursive: true });
    // Keyframes every 2 s and no scene cuts: 6 s segments land on the same frames in every rendition.
    await run('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      clip,
      '-vf',
      `scale=${width}:${height}`,
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-profile:v',
      'main',
      '-level:v',
      '3.0',
      '-pix_fmt',
      'yuv420p',
      '-g',
      String(fps * 2),
      '-keyint_min',
      String(fps * 2),
      '-sc_threshold',
      '0',
      ...(videoBitrateKbps
        ? ['-b:v', `${videoBitrateKbps}k`, '-maxrate', `${videoBitrateKbps}k`, '-bufsize', `${videoBitrateKbps * 2}k`]
        : []),
      '-c:a',
      'aac',
      '-b:a',
      '64k',
      '-ac',
      '2',
      '-f',
      'hls',
      '-hls_time',
      '6',
      '-hls_playlist_type',
      'vod',
      '-hls_segment_type',
      'fmp4',
      '-hls_fmp4_init_filename',
      'init.mp4',
      '-hls_segment_filename',
      join(out, 'seg-%05d.m4s'),
      join(out, 'playlist.m3u8'),
    ]);
    const files = readdirSync(out);
    for (const name of files) {
      const key = `${objectKeys.renditionDir(videoId, height)}/${name}`;
      const data = readFileSync(join(out, name));
      await storage.put(key, data, contentTypeForHlsFile(name));
      objects.set(key, data);
    }
    renditions.push({ key: `${height}p`, width, height, segmentCount: files.filter((f) => f.endsWith('.m4s')).length });
  }

  const master = [
    '#EXTM3U',
    '#EXT-X-VERSION:7',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    ...[...renditions]
      .reverse()
      .flatMap((r) => [
        `#EXT-X-STREAM-INF:BANDWIDTH=${r.height * 2000},RESOLUTION=${r.width}x${r.height},CODECS="avc1.4d401e,mp4a.40.2",FRAME-RATE=${fps.toFixed(3)}`,
        `${r.key}/playlist.m3u8`,
      ]),
  ].join('\n');
  await storage.put(objectKeys.master(videoId), `${master}\n`, contentTypeForHlsFile('master.m3u8'));
  objects.set(objectKeys.master(videoId), Buffer.from(`${master}\n`));

  const thumbnailPath = join(dir, 'thumb.jpg');
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-ss',
    '1',
    '-i',
    clip,
    '-frames:v',
    '1',
    thumbnailPath,
  ]);
  const thumbnailKey = objectKeys.thumbnail(videoId, 'default.jpg');
  const thumbnail = readFileSync(thumbnailPath);
  await storage.put(thumbnailKey, thumbnail, 'image/jpeg');
  objects.set(thumbnailKey, thumbnail);

  const storagePath = `uploads/${orgId}/${envId}/${newId('upl')}/source.mp4`;
  await storage.put(storagePath, readFileSync(clip), 'video/mp4');
  await db
    .insertInto('videos')
    .values({
      id: videoId,
      org_id: orgId,
      env_id: envId,
      name: `fixture ${videoId}`,
      description: null,
      status: 'ready',
      failure_reason: null,
      storage_path: storagePath,
      video_quality: 'standard',
      allow_public_access: allowPublicAccess,
      parameters: JSON.stringify({
        maxEdgeLength: -1,
        maxFrameRate: -1,
        pixelFormat: 'yuv420p',
        rateControlMode: 'variableBitrate',
        twoPassVBREncoding: false,
        compressionRatio: 'ultrafast',
        audioCodec: 'aac',
      }),
      duration_seconds: seconds,
      source_width: top!.width,
      source_height: top!.height,
      source_frame_rate: fps,
      thumbnail_key: thumbnailKey,
      ready_at: new Date(),
      deleted_at: null,
      delete_reason: null,
    })
    .execute();
  for (const r of renditions) {
    await db
      .insertInto('renditions')
      .values({
        video_id: videoId,
        key: r.key,
        width: r.width,
        height: r.height,
        short_edge_pixels: r.height,
        short_edge_is_width: false,
        video_bitrate_kbps: r.height * 2,
        audio_bitrate_kbps: 64,
        audio_format: 'aac',
        frame_rate: fps,
        pixel_format: 'yuv420p',
        rate_control_mode: 'variableBitrate',
        two_pass: false,
        compression_ratio: 'ultrafast',
        codecs: 'avc1.4d401e,mp4a.40.2',
        bandwidth: r.height * 2000,
        segment_count: r.segmentCount,
      })
      .execute();
  }
  return { videoId, orgId, envId, frameCount: seconds * fps, renditions, thumbnailKey, objects, sourcePath: clip };
}
