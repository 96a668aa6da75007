import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { sniffContainer } from './uploads.ts';

const box = (type: string, size = 32) =>
  Buffer.concat([Buffer.from([0, 0, 0, size]), Buffer.from(type, 'latin1'), Buffer.alloc(8)]);

describe('sniffContainer', () => {
  it('knows MP4 and QuickTime by their first box', () => {
    for (const type of ['ftyp', 'moov', 'mdat', 'free', 'wide']) assert.equal(sniffContainer(box(type)), 'mp4', type);
  });

  it('knows AVI by its RIFF header and WebM/Matroska by the EBML magic', () => {
    assert.equal(sniffContainer(Buffer.from('RIFF\x10\x00\x00\x00AVI LIST', 'latin1')), 'avi');
    assert.equal(sniffContainer(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81])), 'matroska');
  });

  it('refuses anything else: text, WAV (RIFF but not AVI), an unknown box, too few bytes, nothing', () => {
    assert.equal(sniffContainer(Buffer.from('This is a text file that someone uploaded.')), undefined);
    assert.equal(sniffContainer(Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt ', 'latin1')), undefined);
    assert.equal(sniffContainer(box('junk')), undefined);
    assert.equal(sniffContainer(Buffer.from([0x1a, 0x45])), undefined);
    assert.equal(sniffContainer(new Uint8Array(0)), undefined);
  });
});
