// The one thing ingest reads of SRT itself: a caller's handshake, for its type and its stream id
// (the stream key). SRT (draft-sharabayko-srt-01, section 3.2.1) sends its handshake as a control
// packet (first bit set, control type 0) whose 48-byte body starts after the 16-byte header; the
// caller's conclusion (handshake type 0xFFFFFFFF) carries extensions after it, the stream id as
// extension type 5, its bytes reversed within each 32-bit word (libsrt's layout) and NUL-padded.

const headerBytes = 16;
const bodyBytes = 48;
const handshakeTypeOffset = headerBytes + 20;
const streamIdExtension = 5;

export type HandshakeKind = 'induction' | 'conclusion' | 'other';

export interface SrtHandshake {
  kind: HandshakeKind;
  /** The caller's stream id, from a conclusion's extension; undefined when it sent none. */
  streamId?: string;
}

/** The handshake a datagram carries, or undefined for any other packet (data, other control). */
export function readHandshake(packet: Buffer): SrtHandshake | undefined {
  if (packet.length < headerBytes + bodyBytes) return undefined;
  const isControl = (packet[0]! & 0x80) !== 0;
  if (!isControl || (packet.readUInt16BE(0) & 0x7fff) !== 0) return undefined;
  const type = packet.readUInt32BE(handshakeTypeOffset);
  const kind: HandshakeKind = type === 1 ? 'induction' : type === 0xffffffff ? 'conclusion' : 'other';
  let streamId: string | undefined;
  for (let at = headerBytes + bodyBytes; at + 4 <= packet.length;) {
    const extension = packet.readUInt16BE(at);
    const end = at + 4 + packet.readUInt16BE(at + 2) * 4;
    if (end > packet.length) break;
    if (extension === streamIdExtension) streamId = wordsReversed(packet.subarray(at + 4, end));
    at = end;
  }
  return { kind, ...(streamId === undefined ? {} : { streamId }) };
}

function wordsReversed(content: Buffer): string {
  const text = Buffer.alloc(content.length);
  for (let word = 0; word < content.length; word += 4)
    for (let k = 0; k < 4; k++) text[word + k] = content[word + 3 - k]!;
  return text.toString('utf8').replace(/\0+$/, '');
}
