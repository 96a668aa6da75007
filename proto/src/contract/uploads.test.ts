import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { CONTAINER_SNIFF_BYTES, sniffContainer } from './uploads.ts';

/** `count` MPEG-TS packets of `size` bytes (188, or 192 for M2TS with its 4-byte timestamp first), the rest zeros. */
function tsPackets(size: 188 | 192, count: number): Buffer {
  const bytes = Buffer.alloc(size * count);
  for (let k = 0; k < count; k++) bytes[k * size + size - 188] = 0x47;
  return bytes;
}

/** An MXF header partition pack key (closed and complete: 0x04), then zeros. */
const mxfHead = Buffer.concat([
  Buffer.from([0x06, 0x0e, 0x2b, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0d, 0x01, 0x02, 0x01, 0x01, 0x02, 0x04, 0x00]),
  Buffer.alloc(64),
]);

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

  it('knows MPEG-TS by the sync byte opening its first four packets, of 188 bytes (.ts) or 192 (M2TS, .mts)', () => {
    assert.equal(sniffContainer(tsPackets(188, 6).subarray(0, CONTAINER_SNIFF_BYTES)), 'mpegts');
    assert.equal(sniffContainer(tsPackets(192, 6).subarray(0, CONTAINER_SNIFF_BYTES)), 'mpegts');
    // Within the bytes the check reads.
    assert.ok(CONTAINER_SNIFF_BYTES > 4 + 3 * 192);
  });

  it('knows MXF by its header partition pack', () => {
    assert.equal(sniffContainer(mxfHead), 'mxf');
  });

  it('refuses a lone sync byte, three packets only, a packet out of step, and an MXF key of another kind', () => {
    assert.equal(sniffContainer(Buffer.from('GIF89a and then some text to make it long enough')), undefined);
    assert.equal(sniffContainer(tsPackets(188, 3)), undefined);
    const outOfStep = tsPackets(188, 6);
    outOfStep[2 * 188] = 0;
    assert.equal(sniffContainer(outOfStep), undefined);
    const bodyPartition = Buffer.from(mxfHead);
    bodyPartition[13] = 0x03;
    assert.equal(sniffContainer(bodyPartition), undefined);
  });

  it('refuses anything else: text, WAV (RIFF but not AVI), an unknown box, too few bytes, nothing', () => {
    assert.equal(sniffContainer(Buffer.from('This is a text file that someone uploaded.')), undefined);
    assert.equal(sniffContainer(Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt ', 'latin1')), undefined);
    assert.equal(sniffContainer(box('junk')), undefined);
    assert.equal(sniffContainer(Buffer.from([0x1a, 0x45])), undefined);
    assert.equal(sniffContainer(new Uint8Array(0)), undefined);
  });
});
