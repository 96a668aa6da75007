// Reads a CMAF init segment (init.mp4) to describe what was really written: the RFC 6381 CODECS
// string comes from the bytes players will see (avcC, hvcC, av1C, esds), not from what we asked the
// encoder for.

export interface InitSegmentInfo {
  /** e.g. "avc1.64001f,mp4a.40.2", "hvc1.1.6.L93.90", "av01.0.05M.08"; video first. */
  codecs: string;
  videoCodec?: string;
  audioCodec?: string;
  /** Sample entry of the audio track (mp4a, ac-3, ec-3), when there is one. */
  audioSampleEntry?: string;
  width: number;
  height: number;
}

/** One box of an ISO BMFF (MP4) file: where it starts, its whole size, its header, and its payload. */
export interface Mp4Box {
  type: string;
  /** Offset of the box (its size field). */
  offset: number;
  /** The whole box, header included. */
  size: number;
  /** Header length: 8, or 16 with a 64-bit size. */
  header: number;
  /** Offset of the payload (after the header). */
  start: number;
  end: number;
}

/** The boxes found back to back in `data[start, end)`; stops at the first one that does not fit. */
export function readMp4Boxes(data: Buffer, start: number, end: number): Mp4Box[] {
  const boxes: Mp4Box[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    let size = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    let header = 8;
    if (size === 1) {
      size = Number(data.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = end - offset;
    }
    if (size < header || offset + size > end) break;
    boxes.push({ type, offset, size, header, start: offset + header, end: offset + size });
    offset += size;
  }
  return boxes;
}

function child(data: Buffer, parent: Mp4Box, type: string, skip = 0): Mp4Box | undefined {
  return readMp4Boxes(data, parent.start + skip, parent.end).find((b) => b.type === type);
}

function hex2(value: number): string {
  return value.toString(16).padStart(2, '0');
}

/** MPEG-4 descriptors: a tag byte, then a length in up to four 7-bit groups. */
function readDescriptor(
  data: Buffer,
  offset: number,
  end: number,
): { tag: number; start: number; end: number } | undefined {
  if (offset >= end) return undefined;
  const tag = data.readUInt8(offset);
  let length = 0;
  let cursor = offset + 1;
  for (let i = 0; i < 4 && cursor < end; i++) {
    const byte = data.readUInt8(cursor++);
    length = (length << 7) | (byte & 0x7f);
    if ((byte & 0x80) === 0) break;
  }
  return { tag, start: cursor, end: Math.min(end, cursor + length) };
}

/** The codecs string of an `mp4a` entry from its esds: AAC as mp4a.40.<object type>, MP3 as mp4a.40.34. */
function mp4aCodec(data: Buffer, esds: Mp4Box): string {
  const es = readDescriptor(data, esds.start + 4, esds.end); // skip version and flags
  if (!es || es.tag !== 0x03) return 'mp4a';
  const flags = data.readUInt8(es.start + 2);
  let cursor = es.start + 3;
  if (flags & 0x80) cursor += 2; // dependsOn_ES_ID
  if (flags & 0x40) cursor += 1 + data.readUInt8(cursor); // URL
  if (flags & 0x20) cursor += 2; // OCR_ES_Id
  const config = readDescriptor(data, cursor, es.end);
  if (!config || config.tag !== 0x04) return 'mp4a';
  const objectType = data.readUInt8(config.start);
  // MPEG-1/2 Layer III: Apple's HLS authoring spec and ffmpeg's own hlsenc write mp4a.40.34.
  if (objectType === 0x6b || objectType === 0x69) return 'mp4a.40.34';
  if (objectType !== 0x40) return `mp4a.${hex2(objectType)}`;
  const specific = readDescriptor(data, config.start + 13, config.end);
  if (!specific || specific.tag !== 0x05 || specific.start >= specific.end) return 'mp4a.40.2';
  let audioObjectType = data.readUInt8(specific.start) >> 3;
  if (audioObjectType === 31 && specific.start + 1 < specific.end) {
    audioObjectType = 32 + (((data.readUInt8(specific.start) & 0x07) << 3) | (data.readUInt8(specific.start + 1) >> 5));
  }
  return `mp4a.40.${audioObjectType}`;
}

/** avc1.PPCCLL (RFC 6381): profile_idc, the constraint flags and level_idc, as avcC carries them. */
function avcCodec(data: Buffer, entryType: string, avcC: Mp4Box | undefined): string {
  if (!avcC || avcC.end - avcC.start < 4) return entryType;
  return `${entryType}.${hex2(data.readUInt8(avcC.start + 1))}${hex2(data.readUInt8(avcC.start + 2))}${hex2(data.readUInt8(avcC.start + 3))}`;
}

/** The 32 bits of `value` in the opposite order (bit 0 becomes bit 31). */
function reverseBits32(value: number): number {
  let reversed = 0;
  for (let bit = 0; bit < 32; bit++) reversed = (reversed << 1) | ((value >>> bit) & 1);
  return reversed >>> 0;
}

/**
 * The HEVC codecs string of ISO/IEC 14496-15 Annex E.3 from the hvcC record's first 13 bytes
 * (configurationVersion; profile space, tier and profile_idc; 32 compatibility flags; 48 constraint
 * flags; level_idc), in the upper-case hex of Apple's HLS authoring spec and GPAC: e.g. hvc1.1.6.L93.B0.
 */
function hevcCodec(data: Buffer, entryType: string, hvcC: Mp4Box | undefined): string {
  if (!hvcC || hvcC.end - hvcC.start < 13) return entryType;
  const profileByte = data.readUInt8(hvcC.start + 1);
  const profileSpace = ['', 'A', 'B', 'C'][profileByte >> 6]; // 0 is written as nothing
  const tier = profileByte & 0x20 ? 'H' : 'L';
  const profile = profileByte & 0x1f;
  // The flags are written with general_profile_compatibility_flag[0] first (the top bit); the string
  // puts flag[j] at bit j, hence reversed.
  const compatibility = reverseBits32(data.readUInt32BE(hvcC.start + 2));
  const constraints = [...data.subarray(hvcC.start + 6, hvcC.start + 12)];
  // Trailing zero bytes may be left out; the first (the progressive/interlaced flags) always stays,
  // as GPAC and ffmpeg write it.
  while (constraints.length > 1 && constraints[constraints.length - 1] === 0) constraints.pop();
  const level = data.readUInt8(hvcC.start + 12);
  const hex = (value: number) => value.toString(16).toUpperCase();
  return `${entryType}.${profileSpace}${profile}.${hex(compatibility)}.${tier}${level}.${constraints.map(hex).join('.')}`;
}

/**
 * av01.P.LLT.DD, the short form of the AV1 ISOBMFF binding's codecs parameter, from the av1C record:
 * byte 1 is seq_profile (3 bits) and seq_level_idx_0 (5), byte 2 starts with seq_tier_0,
 * high_bitdepth and twelve_bit.
 */
function av1Codec(data: Buffer, entryType: string, av1C: Mp4Box | undefined): string {
  if (!av1C || av1C.end - av1C.start < 3) return entryType;
  const profileLevel = data.readUInt8(av1C.start + 1);
  const flags = data.readUInt8(av1C.start + 2);
  const tier = flags & 0x80 ? 'H' : 'M';
  const bitDepth = flags & 0x40 ? (flags & 0x20 ? 12 : 10) : 8;
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  return `${entryType}.${profileLevel >> 5}.${twoDigits(profileLevel & 0x1f)}${tier}.${twoDigits(bitDepth)}`;
}

/** The video sample entries we read, with the box holding each one's decoder configuration. */
const videoCodecOf: ReadonlyMap<
  string,
  { config: string; codec: (data: Buffer, entryType: string, config: Mp4Box | undefined) => string }
> = new Map([
  ['avc1', { config: 'avcC', codec: avcCodec }],
  ['avc3', { config: 'avcC', codec: avcCodec }],
  ['hvc1', { config: 'hvcC', codec: hevcCodec }],
  ['hev1', { config: 'hvcC', codec: hevcCodec }],
  ['av01', { config: 'av1C', codec: av1Codec }],
]);

export function parseInitSegment(data: Buffer): InitSegmentInfo {
  const moov = readMp4Boxes(data, 0, data.length).find((b) => b.type === 'moov');
  if (!moov) throw new Error('init segment has no moov box');
  const info: InitSegmentInfo = { codecs: '', width: 0, height: 0 };
  for (const trak of readMp4Boxes(data, moov.start, moov.end).filter((b) => b.type === 'trak')) {
    const mdia = child(data, trak, 'mdia');
    const minf = mdia && child(data, mdia, 'minf');
    const stbl = minf && child(data, minf, 'stbl');
    const stsd = stbl && child(data, stbl, 'stsd');
    if (!stsd) continue;
    const entry = readMp4Boxes(data, stsd.start + 8, stsd.end)[0]; // skip version, flags, entry count
    if (!entry) continue;
    const video = videoCodecOf.get(entry.type);
    if (video) {
      // VisualSampleEntry: 78 bytes of fixed fields, then its boxes.
      info.width = data.readUInt16BE(entry.start + 24);
      info.height = data.readUInt16BE(entry.start + 26);
      info.videoCodec = video.codec(data, entry.type, child(data, entry, video.config, 78));
    } else if (entry.type === 'mp4a' || entry.type === 'ac-3' || entry.type === 'ec-3') {
      info.audioSampleEntry = entry.type;
      if (entry.type === 'mp4a') {
        // AudioSampleEntry: 28 bytes of fixed fields (QuickTime versions 1 and 2 add 16 or 36).
        const version = data.readUInt16BE(entry.start + 8);
        const fixed = 28 + (version === 1 ? 16 : version === 2 ? 36 : 0);
        const esds = child(data, entry, 'esds', fixed);
        info.audioCodec = esds ? mp4aCodec(data, esds) : 'mp4a.40.2';
      } else {
        info.audioCodec = entry.type;
      }
    }
  }
  info.codecs = [info.videoCodec, info.audioCodec].filter(Boolean).join(',');
  return info;
}

/** ISO BMFF sample flags: sample_is_non_sync_sample. */
const nonSyncSample = 0x10000;

/**
 * Whether a CMAF fragment (a live part: moof and mdat) starts with a keyframe, read from its first
 * track's first sample flags (the picture's: ffmpeg writes the video track first): trun's first
 * sample flags, else its first sample's own, else tfhd's default. A fragment that says none of these
 * is taken as not starting with one (a player is never sent to start from it).
 */
export function fragmentStartsWithKeyframe(data: Buffer): boolean {
  const moof = readMp4Boxes(data, 0, data.length).find((b) => b.type === 'moof');
  const traf = moof && child(data, moof, 'traf');
  const tfhd = traf && child(data, traf, 'tfhd');
  const trun = traf && child(data, traf, 'trun');
  if (!tfhd || !trun) return false;
  const trunFlags = data.readUInt32BE(trun.start) & 0xffffff;
  const sampleCount = data.readUInt32BE(trun.start + 4);
  let at = trun.start + 8 + (trunFlags & 0x1 ? 4 : 0);
  if (trunFlags & 0x4) return (data.readUInt32BE(at) & nonSyncSample) === 0;
  if (sampleCount > 0 && trunFlags & 0x400) {
    at += (trunFlags & 0x100 ? 4 : 0) + (trunFlags & 0x200 ? 4 : 0);
    return (data.readUInt32BE(at) & nonSyncSample) === 0;
  }
  const tfhdFlags = data.readUInt32BE(tfhd.start) & 0xffffff;
  if (!(tfhdFlags & 0x20)) return false;
  const defaults = tfhd.start + 8 + (tfhdFlags & 0x1 ? 8 : 0) + (tfhdFlags & 0x2 ? 4 : 0);
  const flagsAt = defaults + (tfhdFlags & 0x8 ? 4 : 0) + (tfhdFlags & 0x10 ? 4 : 0);
  return (data.readUInt32BE(flagsAt) & nonSyncSample) === 0;
}

/**
 * Each track's base media decode time (`tfdt`) in a fragment's first `moof`, in its timescale, read
 * unsigned as players read it: a negative time written by a muxer shows as near 2^64 (version 1) or
 * 2^32 (version 0).
 */
export function fragmentDecodeTimes(data: Buffer): bigint[] {
  const moof = readMp4Boxes(data, 0, data.length).find((b) => b.type === 'moof');
  if (!moof) return [];
  return readMp4Boxes(data, moof.start, moof.end)
    .filter((b) => b.type === 'traf')
    .map((traf) => child(data, traf, 'tfdt'))
    .filter((tfdt) => tfdt !== undefined)
    .map((tfdt) =>
      data[tfdt.start] === 1 ? data.readBigUInt64BE(tfdt.start + 4) : BigInt(data.readUInt32BE(tfdt.start + 4)),
    );
}
