// The size of a JPEG the node wrote (a thumbnail, a storyboard sheet), read from its header.

/** Width and height from a JPEG's start-of-frame marker. */
export function jpegSize(data: Buffer): { width: number; height: number } | undefined {
  let offset = 2; // after SOI
  while (offset + 9 < data.length) {
    if (data[offset] !== 0xff) return undefined;
    const marker = data[offset + 1]!;
    const length = data.readUInt16BE(offset + 2);
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: data.readUInt16BE(offset + 5), width: data.readUInt16BE(offset + 7) };
    }
    offset += 2 + length;
  }
  return undefined;
}
