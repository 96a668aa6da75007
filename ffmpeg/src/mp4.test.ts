import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hlsInitName } from '@kino/proto/contract';
import { runFfmpeg } from './command.ts';
import { parseInitSegment } from './mp4.ts';
import { hlsMuxerArgs } from './presets.ts';

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function descriptor(tag: number, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  // The four-byte length form ffmpeg writes (0x80 0x80 0x80 len).
  return Buffer.concat([Buffer.from([tag, 0x80, 0x80, 0x80, body.length]), body]);
}

function visualEntry(type: string, width: number, height: number, config: Buffer): Buffer {
  const fixed = Buffer.alloc(78);
  fixed.writeUInt16BE(1, 6); // data reference index
  fixed.writeUInt16BE(width, 24);
  fixed.writeUInt16BE(height, 26);
  return box(type, fixed, config);
}

function avc1(width: number, height: number, profile: number, compat: number, level: number): Buffer {
  return visualEntry('avc1', width, height, box('avcC', Buffer.from([1, profile, compat, level, 0xff, 0xe1])));
}

/** An hvcC record's first 13 bytes (what the codecs string reads), then the rest zeroed. */
function hvc1(profileByte: number, compatibility: number, constraints: number[], level: number): Buffer {
  const record = Buffer.alloc(23);
  record.writeUInt8(1, 0); // configurationVersion
  record.writeUInt8(profileByte, 1);
  record.writeUInt32BE(compatibility, 2);
  Buffer.from(constraints).copy(record, 6);
  record.writeUInt8(level, 12);
  return visualEntry('hvc1', 1920, 1080, box('hvcC', record));
}

/** An av1C record: marker and version, seq_profile and seq_level_idx_0, then tier, bit depth and chroma. */
function av01(profileLevel: number, flags: number): Buffer {
  return visualEntry('av01', 1920, 1080, box('av1C', Buffer.from([0x81, profileLevel, flags, 0])));
}

function mp4a(objectType: number, audioSpecificConfig?: Buffer): Buffer {
  const fixed = Buffer.alloc(28);
  fixed.writeUInt16BE(2, 16); // channels
  const config = Buffer.concat([Buffer.from([objectType, 0x15]), Buffer.alloc(11)]);
  const es = descriptor(
    0x03,
    Buffer.from([0, 1, 0]), // ES_ID, flags
    descriptor(0x04, config, ...(audioSpecificConfig ? [descriptor(0x05, audioSpecificConfig)] : [])),
  );
  return box('mp4a', fixed, box('esds', Buffer.alloc(4), es));
}

function audioEntry(type: 'ac-3' | 'ec-3'): Buffer {
  return box(type, Buffer.alloc(28), box(type === 'ac-3' ? 'dac3' : 'dec3', Buffer.from([0x10, 0x11, 0x40])));
}

function track(entry: Buffer): Buffer {
  const stsdHeader = Buffer.alloc(8);
  stsdHeader.writeUInt32BE(1, 4);
  return box(
    'trak',
    box('tkhd', Buffer.alloc(84)),
    box('mdia', box('minf', box('stbl', box('stsd', stsdHeader, entry)))),
  );
}

function init(...entries: Buffer[]): Buffer {
  return Buffer.concat([
    box('ftyp', Buffer.from('iso5\0\0\0\x01')),
    box('moov', box('mvhd', Buffer.alloc(100)), ...entries.map(track)),
  ]);
}

test('avc1.PPCCLL from avcC, the size from the sample entry', () => {
  const info = parseInitSegment(init(avc1(640, 360, 0x64, 0x00, 0x1e)));
  assert.equal(info.codecs, 'avc1.64001e');
  assert.equal(info.width, 640);
  assert.equal(info.height, 360);
  assert.equal(parseInitSegment(init(avc1(320, 240, 0x42, 0xc0, 0x0d))).codecs, 'avc1.42c00d');
  assert.equal(parseInitSegment(init(avc1(1920, 1080, 0x6e, 0x00, 0x28))).codecs, 'avc1.6e0028');
});

test('AAC by its audio object type: LC, HE, HE v2, and the escaped form', () => {
  const aac = (config: number[]) =>
    parseInitSegment(init(avc1(2, 2, 0x64, 0, 0x0a), mp4a(0x40, Buffer.from(config)))).codecs;
  assert.equal(aac([0x11, 0x90]), 'avc1.64000a,mp4a.40.2');
  assert.equal(aac([0x2b, 0x92, 0x08, 0x00]), 'avc1.64000a,mp4a.40.5');
  assert.equal(aac([0xeb, 0x8a, 0x08, 0x00]), 'avc1.64000a,mp4a.40.29');
  assert.equal(aac([0xf9, 0x40]), 'avc1.64000a,mp4a.40.42');
});

test('MP3 in MP4 is mp4a.40.34; AC-3 and E-AC-3 by their sample entries', () => {
  const mp3 = parseInitSegment(init(avc1(2, 2, 0x64, 0, 0x0a), mp4a(0x6b)));
  assert.equal(mp3.codecs, 'avc1.64000a,mp4a.40.34');
  assert.equal(mp3.audioSampleEntry, 'mp4a');
  assert.equal(parseInitSegment(init(avc1(2, 2, 0x64, 0, 0x0a), mp4a(0x69))).audioCodec, 'mp4a.40.34');
  assert.equal(parseInitSegment(init(avc1(2, 2, 0x64, 0, 0x0a), audioEntry('ac-3'))).codecs, 'avc1.64000a,ac-3');
  assert.equal(parseInitSegment(init(avc1(2, 2, 0x64, 0, 0x0a), audioEntry('ec-3'))).codecs, 'avc1.64000a,ec-3');
});

test('video only, and garbage', () => {
  const info = parseInitSegment(init(avc1(426, 240, 0x64, 0, 0x15)));
  assert.equal(info.audioCodec, undefined);
  assert.equal(info.codecs, 'avc1.640015');
  assert.throws(() => parseInitSegment(Buffer.from('not an mp4 at all')), /no moov/);
});

/**
 * Encodes 0.4 s of a test pattern with Debian's ffmpeg and the HLS muxer the node uses, and returns
 * the init segment it wrote.
 */
async function realInitSegment(size: string, encoderArgs: string[], withAudio = false): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'kino-mp4-'));
  try {
    await runFfmpeg(
      [
        '-f',
        'lavfi',
        '-i',
        `testsrc2=size=${size}:rate=25:duration=0.4`,
        ...(withAudio ? ['-f', 'lavfi', '-i', 'sine=duration=0.4', '-c:a', 'aac'] : []),
        ...encoderArgs,
        ...hlsMuxerArgs(2),
      ],
      { cwd: dir },
    );
    return await readFile(join(dir, hlsInitName));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// The expected strings were checked once against ffprobe's profile and level of these streams, and
// against the CODECS that ffmpeg 9's HLS muxer writes for the same encodes with its own libx265 and
// SVT-AV1.
test('HEVC from libx265 (hvc1): Main and Main 10, level from the size, progressive and frame-only constraints', async () => {
  const x265 = ['-c:v', 'libx265', '-preset', 'ultrafast', '-tag:v', 'hvc1', '-x265-params', 'log-level=error'];
  const main = parseInitSegment(await realInitSegment('320x180', [...x265, '-pix_fmt', 'yuv420p'], true));
  assert.equal(main.codecs, 'hvc1.1.6.L60.90,mp4a.40.2');
  assert.deepEqual([main.width, main.height], [320, 180]);
  const main10 = parseInitSegment(await realInitSegment('640x360', [...x265, '-pix_fmt', 'yuv420p10le']));
  assert.equal(main10.codecs, 'hvc1.2.4.L63.90');
  assert.deepEqual([main10.width, main10.height], [640, 360]);
});

test('AV1 from SVT-AV1: 8 and 10 bits, level from the size', async () => {
  const svt = ['-c:v', 'libsvtav1', '-preset', '12'];
  const eight = parseInitSegment(await realInitSegment('320x180', [...svt, '-pix_fmt', 'yuv420p']));
  assert.equal(eight.codecs, 'av01.0.00M.08');
  assert.deepEqual([eight.width, eight.height], [320, 180]);
  const ten = parseInitSegment(await realInitSegment('640x360', [...svt, '-pix_fmt', 'yuv420p10le']));
  assert.equal(ten.codecs, 'av01.0.01M.10');
  assert.deepEqual([ten.width, ten.height], [640, 360]);
});

test('HEVC: profile space, high tier, bit-reversed compatibility flags, trailing zero constraint bytes dropped', () => {
  const hevc = (profileByte: number, compatibility: number, constraints: number[], level: number) =>
    parseInitSegment(init(hvc1(profileByte, compatibility, constraints, level))).codecs;
  // Apple's HLS authoring spec's example: Main, Main-compatible flags [1] and [2], level 3.1.
  assert.equal(hevc(0x01, 0x60000000, [0xb0, 0, 0, 0, 0, 0], 93), 'hvc1.1.6.L93.B0');
  // Profile space 1..3 as A..C; the tier flag as H; flags past the first hex digit.
  assert.equal(hevc(0x40 | 0x20 | 0x04, 0x08000001, [0x90], 153), 'hvc1.A4.80000010.H153.90');
  assert.equal(hevc(0x80 | 0x02, 0x20000000, [0x90], 120), 'hvc1.B2.4.L120.90');
  assert.equal(hevc(0xc0 | 0x01, 0x60000000, [0x90], 90), 'hvc1.C1.6.L90.90');
  // A zero byte before a non-zero one stays; only the trailing ones go, the first always stays.
  assert.equal(hevc(0x04, 0x08000000, [0x98, 0x00, 0x0c, 0x00, 0x00, 0x00], 123), 'hvc1.4.10.L123.98.0.C');
  assert.equal(hevc(0x04, 0x08000000, [0x98, 0x01, 0x02, 0x03, 0x04, 0xff], 123), 'hvc1.4.10.L123.98.1.2.3.4.FF');
  assert.equal(hevc(0x01, 0x60000000, [0, 0, 0, 0, 0, 0], 93), 'hvc1.1.6.L93.0');
});

test('AV1: profile, two-digit level, tier and the bit depth from high_bitdepth and twelve_bit', () => {
  const av1 = (profileLevel: number, flags: number) => parseInitSegment(init(av01(profileLevel, flags))).codecs;
  assert.equal(av1((0 << 5) | 5, 0x0c), 'av01.0.05M.08'); // 4:2:0, 8 bits
  assert.equal(av1((0 << 5) | 13, 0x80 | 0x40 | 0x0c), 'av01.0.13H.10');
  assert.equal(av1((2 << 5) | 19, 0x40 | 0x20), 'av01.2.19M.12');
  assert.equal(av1((1 << 5) | 8, 0x20), 'av01.1.08M.08', 'twelve_bit counts only with high_bitdepth');
});

test('a video sample entry without its configuration box is named by its type alone', () => {
  for (const type of ['avc1', 'hvc1', 'hev1', 'av01']) {
    const info = parseInitSegment(init(visualEntry(type, 640, 360, Buffer.alloc(0))));
    assert.equal(info.codecs, type);
    assert.deepEqual([info.width, info.height], [640, 360]);
  }
});
