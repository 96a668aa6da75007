// The early format check of `POST .../videos/process` (docs/decisions/uploads.md#uploads-and-processing):
// the first bytes of the upload must open one of the containers the upload URL accepts. Only the
// container is judged here; what is inside (codecs, damage) is the probe's to find, and ends in
// `failed` with a reason.

/** How many leading bytes the check reads. */
export const CONTAINER_SNIFF_BYTES = 16;

export type ContainerFamily = 'mp4' | 'avi' | 'matroska';

/**
 * Top-level ISO BMFF / QuickTime box types a file may start with: `ftyp` (every MP4), and the
 * boxes older QuickTime files open with (`moov`, `mdat`, `free`, `skip`, `wide`, `pnot`).
 */
const MP4_FIRST_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot']);

/** EBML magic: WebM and Matroska. */
const EBML_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);

/** The container family these leading bytes open, or undefined when none the upload accepts. */
export function sniffContainer(head: Uint8Array): ContainerFamily | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (bytes.length >= 8 && MP4_FIRST_BOXES.has(bytes.toString('latin1', 4, 8))) return 'mp4';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'AVI ') return 'avi';
  if (bytes.length >= 4 && bytes.subarray(0, 4).equals(EBML_MAGIC)) return 'matroska';
  return undefined;
}
