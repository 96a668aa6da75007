// What an upload may be, for the API (upload URLs, the process call) and the orchestrator (URL ingest).
//
// The early format check of `POST .../videos/process` (docs/decisions/uploads.md#uploads-and-processing):
// the first bytes of the upload must open one of the containers the upload URL accepts. Only the
// container is judged here; what is inside (codecs, damage) is the probe's to find, and ends in
// `failed` with a reason.

/** The largest original an upload URL or a URL ingest takes: 5 GB (GiB: the generous reading of "5 GB"). */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

/** How many leading bytes the check reads. */
export const CONTAINER_SNIFF_BYTES = 16;

export type ContainerFamily = 'mp4' | 'avi' | 'matroska';

/**
 * Top-level ISO BMFF / QuickTime box types a file may start with: `ftyp` (every MP4), and the
 * boxes older QuickTime files open with (`moov`, `mdat`, `free`, `skip`, `wide`, `pnot`).
 */
const MP4_FIRST_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot']);

/** EBML magic: WebM and Matroska. */
const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3];

/** Bytes `start` to `end` as Latin-1 text (every byte one character). */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** The container family these leading bytes open, or undefined when none the upload accepts. */
export function sniffContainer(head: Uint8Array): ContainerFamily | undefined {
  if (head.length >= 8 && MP4_FIRST_BOXES.has(latin1(head, 4, 8))) return 'mp4';
  if (head.length >= 12 && latin1(head, 0, 4) === 'RIFF' && latin1(head, 8, 12) === 'AVI ') return 'avi';
  if (head.length >= 4 && EBML_MAGIC.every((byte, i) => head[i] === byte)) return 'matroska';
  return undefined;
}
