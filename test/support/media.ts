// Media fixtures made with ffmpeg on the spot, and the frame counter tests use to prove playback:
// a clean exit of ffmpeg on a broken playlist proves nothing, a decoded frame count does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ClipOptions {
  /** The picture's length: frames at `fps` while their time is below it (seconds × fps frames when that is whole). */
  seconds: number;
  width: number;
  height: number;
  fps: number;
  audio?: boolean;
  /** The sound's length when it differs from the picture's (recordings often end their audio early). */
  audioSeconds?: number;
  /** Container chosen by the file extension of `path`. */
  path: string;
  /** `still`: colour bars that never move (content that needs few bits); else a moving test pattern. */
  picture?: 'moving' | 'still';
  /**
   * An HDR source, as phones and cameras write it: 10-bit HEVC (hvc1) in BT.2020, tagged in the
   * stream and the container with PQ (`hdr10`) or HLG (`hlg`) as its transfer.
   */
  hdr?: 'hdr10' | 'hlg';
  /** Uncompressed picture and sound (rawvideo, PCM: Matroska or AVI), for a large file quickly made. */
  raw?: boolean;
}

/** A synthetic clip (moving test pattern or still colour bars, sine tone), H.264/AAC unless the extension says otherwise. */
export async function makeClip({
  seconds,
  width,
  height,
  fps,
  audio = true,
  audioSeconds = seconds,
  path,
  picture = 'moving',
  hdr,
  raw = false,
}: ClipOptions): Promise<string> {
  const args = ['-hide_banner', '-loglevel', 'error', '-y'];
  const source = picture === 'still' ? 'smptebars' : 'testsrc2';
  args.push('-f', 'lavfi', '-i', `${source}=size=${width}x${height}:rate=${fps}:duration=${seconds}`);
  if (audio) args.push('-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${audioSeconds}`);
  if (hdr) {
    const transfer = hdr === 'hdr10' ? 'smpte2084' : 'arib-std-b67';
    args.push(
      ...['-c:v', 'libx265', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p10le', '-tag:v', 'hvc1'],
      ...['-x265-params', `log-level=error:colorprim=bt2020:transfer=${transfer}:colormatrix=bt2020nc`],
      ...['-color_primaries', 'bt2020', '-color_trc', transfer, '-colorspace', 'bt2020nc'],
    );
  } else if (raw) args.push('-c:v', 'rawvideo', '-pix_fmt', 'yuv420p');
  else if (path.endsWith('.webm'))
    args.push('-c:v', 'libvpx', '-b:v', '500k', '-deadline', 'realtime', '-cpu-used', '8');
  else args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p');
  if (audio)
    args.push(
      ...(raw ? ['-c:a', 'pcm_s16le'] : path.endsWith('.webm') ? ['-c:a', 'libopus'] : ['-c:a', 'aac', '-b:a', '96k']),
    );
  // -shortest ends the file with its streams; a sound shorter or longer on purpose stays so.
  if (audioSeconds === seconds) args.push('-shortest');
  args.push(path);
  await run('ffmpeg', args);
  return path;
}

/**
 * Decodes every frame of the first video stream of `input` (a file, or an HLS playlist URL) and
 * returns how many there were. Throws if ffmpeg reports any decoding or input error. `runIn`: a
 * command prefix to run ffmpeg under (a network host's `ip netns exec`, whose /etc/hosts names it uses).
 */
export async function countDecodedFrames(
  input: string,
  extraInputArgs: string[] = [],
  runIn: readonly string[] = [],
): Promise<number> {
  const [program, ...prefix] = [...runIn, 'ffmpeg'];
  const { stdout, stderr } = await run(
    program!,
    [
      ...prefix,
      '-hide_banner',
      '-nostats',
      '-v',
      'error',
      '-xerror',
      ...extraInputArgs,
      '-i',
      input,
      '-map',
      '0:v:0',
      '-f',
      'framemd5',
      '-',
    ],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  if (stderr.trim()) throw new Error(`ffmpeg reported errors decoding ${input}:\n${stderr}`);
  return stdout.split('\n').filter((line) => line && !line.startsWith('#')).length;
}

/** Frames in a file's first video stream, counted by ffprobe reading every packet. */
export async function countFramesInFile(path: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-count_frames',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=nb_read_frames',
    '-of',
    'csv=p=0',
    path,
  ]);
  return Number(stdout.trim());
}

/** One stream's field (e.g. codec_name, pix_fmt) as ffprobe reads a file or the joined segments of a playlist. */
export async function streamField(input: string, stream: 'v:0' | 'a:0', field: string): Promise<string> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    stream,
    '-show_entries',
    `stream=${field}`,
    '-of',
    'json',
    input,
  ]);
  return String((JSON.parse(stdout) as { streams: Record<string, unknown>[] }).streams[0]![field]);
}

/**
 * The luma of a video's pictures (8-bit code values), averaged over its frames: the mean, and the
 * 10th and 90th percentiles (signalstats' YAVG, YLOW, YHIGH), after `filter` when given.
 */
export async function lumaStats(input: string, filter?: string): Promise<{ mean: number; p10: number; p90: number }> {
  const { stdout } = await run(
    'ffmpeg',
    [
      ...['-hide_banner', '-nostats', '-v', 'error', '-i', input, '-map', '0:v:0'],
      ...['-vf', `${filter ? `${filter},` : ''}format=yuv420p,signalstats,metadata=print:file=-`, '-f', 'null', '-'],
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const average = (key: string) => {
    const values = [...stdout.matchAll(new RegExp(`lavfi\\.signalstats\\.${key}=([0-9.]+)`, 'g'))].map((m) =>
      Number(m[1]),
    );
    assert.ok(values.length > 0, `no ${key} for ${input}`);
    return values.reduce((sum, value) => sum + value, 0) / values.length;
  };
  return { mean: average('YAVG'), p10: average('YLOW'), p90: average('YHIGH') };
}

/** Decode timestamps of a stream of an HLS playlist, in seconds, as ffprobe reads the joined segments. */
export async function packetTimes(playlist: string, stream: 'v:0' | 'a:0'): Promise<number[]> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=dts_time', '-of', 'csv=p=0', playlist],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return stdout.split('\n').filter(Boolean).map(Number);
}

/** Each packet's MD5 (ffprobe's data hash), in decode order: two streams with equal lists carry the same bytes. */
export async function packetHashes(media: string, stream: 'v:0' | 'a:0'): Promise<string[]> {
  // One `data_hash=` line per packet (csv breaks a packet with side data, the encoder's priming, over two lines).
  const { stdout } = await run(
    'ffprobe',
    [
      '-v',
      'error',
      '-select_streams',
      stream,
      '-show_entries',
      'packet=data_hash',
      '-show_data_hash',
      'md5',
      '-of',
      'default=nw=1',
      media,
    ],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('data_hash='))
    .map((line) => line.slice('data_hash='.length));
}

/** Asserts consecutive timestamps step by `step` everywhere (within 2 ms): no gap, no overlap, no jump at a join. */
export function assertRunsOn(times: number[], step: number, what: string): void {
  for (let i = 1; i < times.length; i += 1) {
    const delta = times[i]! - times[i - 1]!;
    assert.ok(
      Math.abs(delta - step) < 0.002,
      `${what}: packet ${i} at ${times[i]} s follows ${times[i - 1]} s (step ${delta.toFixed(6)}, not ${step.toFixed(6)})`,
    );
  }
}
