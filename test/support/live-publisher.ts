// A live publisher as OBS and ffmpeg users run one: ffmpeg sending a testsrc picture with a tone in
// real time (`-re`), H.264 with a keyframe every 2 s and AAC, over RTMP (FLV) or SRT (MPEG-TS).
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface Published {
  /** ffmpeg's exit code (-1 when it was killed). */
  exitCode: number;
  /** Its last lines of stderr: why a refused publisher stopped. */
  stderr: string;
}

export interface PublishOptions {
  /** The picture's size, 640x360 unless asked. */
  size?: string;
  format?: 'flv' | 'mpegts';
  /** Draws the wall clock and the frame number on the picture: what a person watching the player (or its screenshot) reads. */
  burnIn?: boolean;
}

/** A publisher under way. */
export interface Publisher {
  /** Resolves once ffmpeg exits. */
  done: Promise<Published>;
  /**
   * When frame `n` (from 0) was pushed, ms since epoch: between ffmpeg's two `-progress` reports
   * around it (a frame is reported once it is written); undefined until reported.
   */
  pushedAt(n: number): number | undefined;
  /** Frames pushed so far. */
  framesPushed(): number;
  /** Ends the publish early as a user would (`q`): ffmpeg finishes its output and exits 0. */
  stop(): void;
}

export const publisherFps = 30;

/**
 * Publishes `seconds` of a 30 fps testsrc (`size`) with a 440 Hz tone to `url`
 * (`rtmp://host/live/<key>`, or `srt://host:port?streamid=<key>` with `format: 'mpegts'`), or
 * until stopped, timing each frame's push from ffmpeg's `-progress` (every 0.1 s).
 */
export function startPublisher(
  url: string,
  seconds: number,
  { size = '640x360', format = 'flv', burnIn = false }: PublishOptions = {},
): Publisher {
  const clock =
    "drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf:fontsize=16:fontcolor=white:box=1:boxcolor=black@0.6:x=8:y=8:text='%{localtime\\:%T} %{n}'";
  const picture = `testsrc=size=${size}:rate=${publisherFps}:duration=${seconds}${burnIn ? `,${clock}` : ''}`;
  const args = [
    ...['-hide_banner', '-nostats', '-loglevel', 'error', '-progress', 'pipe:1', '-stats_period', '0.1', '-re'],
    ...['-f', 'lavfi', '-i', picture],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-g', '60', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
    ...['-f', format, url],
  ];
  const child = spawn('ffmpeg', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const { done, pushedAt, framesPushed } = watchPublisher(child);
  return { done, pushedAt, framesPushed, stop: () => child.stdin.end('q') };
}

/** What a publishing ffmpeg (started with `-progress pipe:1 -stats_period 0.1`) tells as it runs. */
export interface WatchedPublisher {
  done: Promise<Published>;
  /** [frames written, when reported] in order. */
  progress: [number, number][];
  pushedAt(n: number): number | undefined;
  framesPushed(): number;
}

/** Reads a publishing ffmpeg's `-progress` lines (each frame's push time) and its exit; the bench's publisher too. */
export function watchPublisher(child: ChildProcessByStdio<Writable | null, Readable, Readable>): WatchedPublisher {
  const progress: [number, number][] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const now = Date.now();
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const frame = /^frame=(\d+)/.exec(line);
      if (frame) progress.push([Number(frame[1]), now]);
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const done = new Promise<Published>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ exitCode: code ?? -1, stderr }));
  });
  const pushedAt = (n: number) => {
    // Reports count frames written: frame n is out once a report counts more than n.
    const after = progress.findIndex(([count]) => count > n);
    if (after < 0) return undefined;
    if (after === 0) return progress[0]![1];
    const [c0, t0] = progress[after - 1]!;
    const [c1, t1] = progress[after]!;
    return t0 + ((n + 1 - c0) / (c1 - c0)) * (t1 - t0);
  };
  return { done, progress, pushedAt, framesPushed: () => progress.at(-1)?.[0] ?? 0 };
}

/** Publishes as `startPublisher` does; resolves once ffmpeg exits. */
export function publishTestsrc(url: string, seconds: number, options: PublishOptions = {}): Promise<Published> {
  return startPublisher(url, seconds, options).done;
}

/**
 * How far each segment's EXT-X-PROGRAM-DATE-TIME sits from the wall-clock time its first frame was
 * pushed: the publisher's start (`publishedAtMs`: taken just before its ffmpeg was spawned, or its
 * first frame's push, `Publisher.pushedAt(0)`) plus the
 * media time before the segment, since `-re` pushes each frame at its media time from the start.
 * ffmpeg starts its clock once its publish is answered (an SRT caller's: its handshake), so the true
 * push is a little after this reckoning: a right time is at or after it, by at most the publisher's start.
 */
export function programDateTimeOffsetsMs(playlist: string, publishedAtMs: number): number[] {
  const offsets = [];
  let mediaSeconds = 0;
  let time: number | undefined;
  for (const line of playlist.split('\n')) {
    if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) time = Date.parse(line.slice(25));
    else if (line.startsWith('#EXTINF:')) {
      assert.ok(time !== undefined, `a segment without its time:\n${playlist}`);
      offsets.push(Math.round(time - (publishedAtMs + mediaSeconds * 1000)));
      mediaSeconds += Number.parseFloat(line.slice(8));
      time = undefined;
    }
  }
  return offsets;
}
