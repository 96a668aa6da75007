// The handshake reader on packets laid out as libsrt sends them: the stream id comes back whole
// from a conclusion, whatever its length; inductions and data packets carry none.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { readHandshake } from './srt-handshake.ts';

/** A caller's conclusion with `streamId` as its extension 5, each 32-bit word's bytes reversed. */
function conclusion(streamId: string, type = 0xffffffff): Buffer {
  const padded = Buffer.alloc(Math.ceil(Buffer.byteLength(streamId) / 4) * 4);
  padded.write(streamId);
  const packet = Buffer.alloc(64 + 4 + padded.length);
  packet.writeUInt16BE(0x8000, 0);
  packet.writeUInt32BE(type, 36);
  packet.writeUInt16BE(5, 64);
  packet.writeUInt16BE(padded.length / 4, 66);
  for (let word = 0; word < padded.length; word += 4)
    for (let k = 0; k < 4; k++) packet[68 + word + k] = padded[word + 3 - k]!;
  return packet;
}

describe('the SRT handshake', () => {
  it('reads the stream id of a conclusion', () => {
    const key = `sk_${'a1B2c3D4e5'.repeat(4)}`;
    assert.deepEqual(readHandshake(conclusion(key)), { kind: 'conclusion', streamId: key });
    assert.deepEqual(readHandshake(conclusion('sk_x')), { kind: 'conclusion', streamId: 'sk_x' });
    assert.deepEqual(readHandshake(conclusion('sk_xy')), { kind: 'conclusion', streamId: 'sk_xy' });
  });

  it('tells an induction, and ignores what is not a handshake', () => {
    const induction = Buffer.alloc(64);
    induction.writeUInt16BE(0x8000, 0);
    induction.writeUInt32BE(1, 36);
    assert.deepEqual(readHandshake(induction), { kind: 'induction' });
    const data = conclusion('sk_x');
    data[0] = 0x00;
    assert.equal(readHandshake(data), undefined, 'a data packet');
    assert.equal(readHandshake(Buffer.alloc(20)), undefined, 'too short');
  });
});
