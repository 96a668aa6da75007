// The ladder of a broadcast (issue 56), run by real ffmpeg on what a publisher sends (H.264 and AAC
// in FLV, its own keyframes every 2 s): the same rungs as a file's, each an EVENT playlist of 6 s
// fMP4 segments with their wall-clock times, ended only when the input ends, with every frame in.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { audioEncodingOf, hlsInitName, hlsLivePartName, hlsPlaylistName } from '@kino/proto/contract';
import { runFfmpeg } from './command.ts';
import { fragmentDecodeTimes, fragmentStartsWithKeyframe } from './mp4.ts';
import { parseMediaPlaylist } from './hls.ts';
import { hlsLadderArgs, type HlsEncodeSettings } from './presets.ts';

const run = promisify(execFile);

const rung: HlsEncodeSettings = {
  width: 640,
  height: 360,
  frameRate: 30,
  capFrameRate: false,
  pixelFormat: 'yuv420p',
  videoCodec: 'h264',
  x264Preset: 'ultrafast',
  videoBitrateKbps: 600,
  rateControl: 'variableBitrate',
  twoPass: false,
  segmentSeconds: 6,
  audio: { encoding: audioEncodingOf.aac, bitrateKbps: 96, channels: 2 },
};

const seconds = 13;
const frames = seconds * 30;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kino-live-ladder-'));
  // As `ffmpeg -c:v libx264 -g 60 -c:a aac -f flv rtmp://…` publishes it.
  await runFfmpeg([
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=640x360:rate=30:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '60',
    '-c:a',
    'aac',
    '-f',
    'flv',
    '-y',
    join(dir, 'published.flv'),
  ]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a live ladder', () => {
  it('writes EVENT playlists of 6 s segments with their wall-clock times, every frame in', async () => {
    const outputs = [
      { settings: rung, dir: '360p' },
      { settings: { ...rung, width: 426, height: 240, videoBitrateKbps: 300 }, dir: '240p' },
    ];
    await Promise.all(outputs.map((o) => mkdir(join(dir, o.dir))));
    await runFfmpeg(['-y', ...hlsLadderArgs({ input: join(dir, 'published.flv'), outputs, threads: 1, live: true })], {
      cwd: dir,
    });
    for (const { dir: rendition } of outputs) {
      const text = await readFile(join(dir, rendition, hlsPlaylistName), 'utf8');
      assert.match(text, /#EXT-X-PLAYLIST-TYPE:EVENT/, `${rendition}: an EVENT playlist`);
      const playlist = parseMediaPlaylist(text);
      assert.equal(playlist.endList, true, `${rendition}: ended once the input ended`);
      // Every segment but the last (the input's end) is 6 s: cut on the 2 s keyframe grid.
      assert.deepEqual(
        playlist.segments.slice(0, -1).map((s) => Math.round(s.durationSeconds * 1000) / 1000),
        [6, 6],
        `${rendition}: 6 s segments on the keyframe grid`,
      );
      const times = text.split('\n').filter((line) => line.startsWith('#EXT-X-PROGRAM-DATE-TIME:'));
      assert.equal(times.length, playlist.segments.length, `${rendition}: a wall-clock time for every segment`);
      const decoded = await countFrames(join(dir, rendition, hlsPlaylistName));
      assert.equal(decoded, frames, `${rendition}: every frame published`);
    }
  });

  it('cuts a low-latency broadcast into parts of 1 s, each starting with a keyframe', async () => {
    await mkdir(join(dir, 'low'));
    // The preset broadcasts get by default, whose B-frames and lookahead a low-latency one goes without.
    const outputs = [{ settings: { ...rung, x264Preset: 'veryfast' as const }, dir: 'low' }];
    await runFfmpeg(
      [
        '-y',
        ...hlsLadderArgs({ input: join(dir, 'published.flv'), outputs, threads: 1, live: true, livePartSeconds: 1 }),
      ],
      { cwd: dir },
    );
    const playlist = parseMediaPlaylist(await readFile(join(dir, 'low', hlsPlaylistName), 'utf8'));
    assert.equal(playlist.segments.length, seconds, `${seconds} parts of ${seconds} s`);
    for (const part of playlist.segments) {
      assert.match(part.uri, hlsLivePartName);
      assert.equal(part.durationSeconds, 1, `${part.uri}: 30 frames`);
      assert.ok(part.programDateTime, `${part.uri}: its wall-clock time`);
      assert.ok(fragmentStartsWithKeyframe(await readFile(join(dir, 'low', part.uri))), `${part.uri} starts a GOP`);
    }
    // No time before 0: AAC's priming would put the first part's sound there, which fMP4 writes
    // as 2^64 - 1024, and hls.js plays it 24.9 hours on.
    const first = fragmentDecodeTimes(await readFile(join(dir, 'low', playlist.segments[0]!.uri)));
    assert.equal(first.length, 2, 'picture and sound');
    for (const time of first) assert.ok(time < 48_000n, `the first part starts at ${time}, not before 0`);
    // The parts back to back after the init are the whole broadcast: every frame.
    const whole = join(dir, 'low-whole.mp4');
    const files = [hlsInitName, ...playlist.segments.map((p) => p.uri)];
    await writeFile(whole, Buffer.concat(await Promise.all(files.map((f) => readFile(join(dir, 'low', f))))));
    assert.equal(await countFrames(whole), frames);
    // Encoded without the frames x264 would hold back (liveLowDelayArgs): no B-frame, which waits for a later one.
    const { stdout } = await run('ffprobe', [
      ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pict_type', '-of', 'csv=p=0', whole],
    ]);
    assert.equal(stdout.split('\n').filter((type) => type.trim() === 'B').length, 0, 'no B-frames');
  });

  it('a window of the low-latency recording encoded again low-delay (a frame-accurate clip’s end) decodes after the recording’s init segment', async () => {
    // Runs on the recording the test above wrote (low/, low-whole.mp4): 2–6 s of it, encoded as a
    // clip's first segment is, then played as the clip plays it, after the recording's own init.
    const decodedAfterRecordingInit = async (name: string, lowDelay: boolean): Promise<number> => {
      await mkdir(join(dir, name));
      const outputs = [{ settings: { ...rung, x264Preset: 'veryfast' as const, lowDelay }, dir: name }];
      const chunk = { startSeconds: 2, durationSeconds: 4, firstSegment: 0 };
      await runFfmpeg(['-y', ...hlsLadderArgs({ input: join(dir, 'low-whole.mp4'), outputs, threads: 1, chunk })], {
        cwd: dir,
      });
      const playlist = parseMediaPlaylist(await readFile(join(dir, name, hlsPlaylistName), 'utf8'));
      const joined = join(dir, `${name}.mp4`);
      const files = [join('low', hlsInitName), ...playlist.segments.map((s) => join(name, s.uri))];
      await writeFile(joined, Buffer.concat(await Promise.all(files.map((f) => readFile(join(dir, f))))));
      return countFramesStrictly(joined);
    };
    assert.equal(await decodedAfterRecordingInit('clip-end', true), 4 * 30);
    // Another encoder's settings write other parameter sets: its slices do not decode there.
    await assert.rejects(decodedAfterRecordingInit('clip-end-standard', false));
  });

  it('pads the sound with silence to the picture’s end: a publisher stops its sound first', async () => {
    // As a publisher stopping sends it: the picture 0.6 s past the sound (its encoder's held frames).
    const published = join(dir, 'sound-first.flv');
    await runFfmpeg([
      ...['-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=30:duration=7'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=6.4'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '60', '-c:a', 'aac', '-f', 'flv', '-y', published],
    ]);
    await mkdir(join(dir, 'padded'));
    const outputs = [{ settings: { ...rung, x264Preset: 'veryfast' as const }, dir: 'padded' }];
    const ladder = hlsLadderArgs({ input: published, outputs, threads: 1, live: true, livePartSeconds: 1 });
    await runFfmpeg(['-y', ...ladder], { cwd: dir });
    const playlist = parseMediaPlaylist(await readFile(join(dir, 'padded', hlsPlaylistName), 'utf8'));
    const whole = join(dir, 'padded-whole.mp4');
    const files = [hlsInitName, ...playlist.segments.map((p) => p.uri)];
    await writeFile(whole, Buffer.concat(await Promise.all(files.map((f) => readFile(join(dir, 'padded', f))))));
    assert.equal(await countFrames(whole), 7 * 30, 'every frame, none added');
    // To the picture's end, give or take what the two streams' frames allow (a frame, a few AAC packets).
    const ends = await streamEnds(whole);
    const reach = `sound to ${ends.audio.toFixed(3)} s, picture to ${ends.video.toFixed(3)} s`;
    assert.ok(ends.audio > ends.video - 1 / 30 && ends.audio < ends.video + 0.1, reach);
  });

  it('numbers a broadcast taken over past the lost node’s files, its times after theirs', () => {
    const outputs = [{ settings: rung, dir: 'low' }];
    const input = 'rtmp://ingest/broadcast/x';
    const args = hlsLadderArgs({
      ...{ input, outputs, threads: 1, live: true, livePartSeconds: 1 },
      ...{ liveFirstFile: 14, liveStartSeconds: 13.966667 },
    });
    assert.equal(args[args.indexOf('-start_number') + 1], '14');
    assert.equal(args[args.indexOf('-output_ts_offset') + 1], '13.966667', 'its times after the stored ones');
    assert.equal(args[args.indexOf('-hls_segment_filename') + 1], 'low/part-%05d.m4s');
    assert.ok(!hlsLadderArgs({ input, outputs, threads: 1, live: true }).includes('-start_number'), 'a first node: 0');
  });

  it('refuses chunks, passes and a known length: a broadcast is one pass of an open input', () => {
    assert.throws(() =>
      hlsLadderArgs({ input: 'rtmp://ingest/live/x', outputs: [], threads: 1, live: true, videoSeconds: 10 }),
    );
  });
});

/** Frames of the file's picture that decode, failing at the first that does not (ffmpeg's -xerror). */
async function countFramesStrictly(file: string): Promise<number> {
  const { stdout } = await run(
    'ffmpeg',
    ['-v', 'error', '-xerror', '-i', file, '-map', '0:v:0', '-f', 'framecrc', '-'],
    {
      maxBuffer: 16 << 20,
    },
  );
  return stdout.split('\n').filter((line) => line && !line.startsWith('#')).length;
}

async function countFrames(playlist: string): Promise<number> {
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
    playlist,
  ]);
  // The HLS demuxer shows the stream once in its program and once on its own: the same count.
  const counts = new Set(stdout.split('\n').filter(Boolean));
  assert.equal(counts.size, 1, stdout);
  return Number([...counts][0]);
}

/** Where each stream of an MP4 ends: its last packet's time plus its length. */
async function streamEnds(file: string): Promise<{ audio: number; video: number }> {
  const end = async (stream: string) => {
    const { stdout } = await run('ffprobe', [
      ...['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=pts_time,duration_time'],
      ...['-of', 'csv=p=0', file],
    ]);
    return Math.max(
      ...stdout
        .split('\n')
        .filter(Boolean)
        // A first packet of no stated length (AAC's priming) ends nothing.
        .map((line) => line.split(',').reduce((sum, value) => sum + (Number(value) || 0), 0)),
    );
  };
  return { audio: await end('a:0'), video: await end('v:0') };
}
