import { test } from 'vitest';
import assert from 'node:assert/strict';
import { parseInitSegment } from './mp4.ts';

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

function avc1(width: number, height: number, profile: number, compat: number, level: number): Buffer {
  const fixed = Buffer.alloc(78);
  fixed.writeUInt16BE(1, 6); // data reference index
  fixed.writeUInt16BE(width, 24);
  fixed.writeUInt16BE(height, 26);
  return box('avc1', fixed, box('avcC', Buffer.from([1, profile, compat, level, 0xff, 0xe1])));
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
  return box('trak', box('tkhd', Buffer.alloc(84)), box('mdia', box('minf', box('stbl', box('stsd', stsdHeader, entry)))));
}

function init(...entries: Buffer[]): Buffer {
  return Buffer.concat([box('ftyp', Buffer.from('iso5\0\0\0\x01')), box('moov', box('mvhd', Buffer.alloc(100)), ...entries.map(track))]);
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
  const aac = (config: number[]) => parseInitSegment(init(avc1(2, 2, 0x64, 0, 0x0a), mp4a(0x40, Buffer.from(config)))).codecs;
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
