// A live publisher as OBS and ffmpeg users run one: ffmpeg sending a testsrc picture with a tone in
// real time (`-re`), H.264 with a keyframe every 2 s and AAC, over RTMP (FLV) or SRT (MPEG-TS).
import { spawn } from 'node:child_process';

export interface Published {
  /** ffmpeg's exit code (-1 when it was killed). */
  exitCode: number;
  /** Its last lines of stderr: why a refused publisher stopped. */
  stderr: string;
}

/**
 * Publishes `seconds` of a 30 fps testsrc (`size`, 640x360 unless asked) with a 440 Hz tone to `url`
 * (`rtmp://host/live/<key>`, or `srt://host:port?streamid=<key>` with `format: 'mpegts'`); resolves
 * once ffmpeg exits.
 */
export function publishTestsrc(
  url: string,
  seconds: number,
  { size = '640x360', format = 'flv' }: { size?: string; format?: 'flv' | 'mpegts' } = {},
): Promise<Published> {
  const args = [
    ...['-hide_banner', '-nostats', '-loglevel', 'error', '-re'],
    ...['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=30:duration=${seconds}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-g', '60', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
    ...['-f', format, url],
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ exitCode: code ?? -1, stderr }));
  });
}
