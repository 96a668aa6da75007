// What an upload may be, for the API (upload URLs, the process call) and the orchestrator (URL ingest).
//
// The early format check of `POST .../videos/process` (docs/decisions/uploads.md#uploads-and-processing):
// the first bytes of the upload must open one of the containers the upload URL accepts. Only the
// container is judged here; what is inside (codecs, damage) is the probe's to find, and ends in
// `failed` with a reason.

/** The largest original an upload URL or a URL ingest takes: 5 GB (GiB: the generous reading of "5 GB"). */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

/**
 * How many leading bytes the check reads: enough for the first four packets of an MPEG-TS or M2TS
 * file (its only signature is the sync byte that opens every packet).
 */
export const CONTAINER_SNIFF_BYTES = 1024;

export type ContainerFamily = 'mp4' | 'avi' | 'matroska' | 'mpegts' | 'mxf';

/** The containers the check accepts, as a refusal names them. */
export const ACCEPTED_CONTAINERS_TEXT =
  'an MP4, QuickTime, AVI, WebM, Matroska, MPEG-TS (.ts, .mts, .m2ts) or MXF file';

/**
 * Top-level ISO BMFF / QuickTime box types a file may start with: `ftyp` (every MP4), and the
 * boxes older QuickTime files open with (`moov`, `mdat`, `free`, `skip`, `wide`, `pnot`).
 */
const MP4_FIRST_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot']);

/** EBML magic: WebM and Matroska. */
const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3];

/** MPEG-TS: every packet opens with this sync byte. */
const TS_SYNC_BYTE = 0x47;

/**
 * The packet sizes of MPEG-TS: 188 bytes (broadcast `.ts`), and 192 for M2TS (AVCHD and Blu-ray
 * `.MTS`/`.M2TS`), whose packets carry a 4-byte timestamp before the sync byte.
 */
const TS_PACKETS = [
  { size: 188, syncAt: 0 },
  { size: 192, syncAt: 4 },
];

/** How many packets in a row must open with the sync byte: one 0x47 byte alone says nothing. */
const TS_PACKETS_CHECKED = 4;

/**
 * MXF (SMPTE 377M): the key of a partition pack, up to its kind. A file opens with its header
 * partition pack (kind 0x02), after a run-in of at most 64 KiB that cameras practically never write.
 */
const MXF_PARTITION_KEY = [0x06, 0x0e, 0x2b, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0d, 0x01, 0x02, 0x01, 0x01, 0x02];

/** Bytes `start` to `end` as Latin-1 text (every byte one character). */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** The container family these leading bytes open, or undefined when none the upload accepts. */
export function sniffContainer(head: Uint8Array): ContainerFamily | undefined {
  if (head.length >= 8 && MP4_FIRST_BOXES.has(latin1(head, 4, 8))) return 'mp4';
  if (head.length >= 12 && latin1(head, 0, 4) === 'RIFF' && latin1(head, 8, 12) === 'AVI ') return 'avi';
  if (head.length >= 4 && EBML_MAGIC.every((byte, i) => head[i] === byte)) return 'matroska';
  if (opensMpegTs(head)) return 'mpegts';
  if (head.length >= MXF_PARTITION_KEY.length && MXF_PARTITION_KEY.every((byte, i) => head[i] === byte)) return 'mxf';
  return undefined;
}

/** Whether the head's first packets, of 188 or of 192 bytes, each open with the MPEG-TS sync byte. */
function opensMpegTs(head: Uint8Array): boolean {
  return TS_PACKETS.some(({ size, syncAt }) => {
    if (head.length <= syncAt + (TS_PACKETS_CHECKED - 1) * size) return false;
    for (let k = 0; k < TS_PACKETS_CHECKED; k++) if (head[syncAt + k * size] !== TS_SYNC_BYTE) return false;
    return true;
  });
}
