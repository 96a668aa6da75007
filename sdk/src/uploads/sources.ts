// What an upload can start from, turned into a Blob (sliced per part, never read whole when it is
// a file) and a fingerprint that names the same content on a rerun (the resume store's key).
import { KinoError } from '../errors.ts';

/** What `uploads.upload` and `putFile` take: a file path (Node entry only), or the bytes themselves. */
export type UploadSource = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>;

/** A file opened for upload: its bytes, and what identifies this version of it. */
export interface OpenedFile {
  blob: Blob;
  /** e.g. the real path, size and modification time. */
  fingerprint: string;
}

/** How a runtime with a file system opens a path; the Node entry provides one, the core has none. */
export interface FileAccess {
  open(path: string): Promise<OpenedFile>;
}

export interface PreparedSource {
  blob: Blob;
  /** The name the source suggests (a path's base name, a File's name). */
  name: string | undefined;
  /** Computed only when asked for: hashing bytes reads them. */
  fingerprint: () => Promise<string>;
}

/** The size of the pieces a Blob's content is hashed in, so that hashing holds one piece at a time. */
const hashPieceBytes = 16 * 1024 * 1024;

const hex = (buffer: ArrayBuffer) =>
  [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, '0')).join('');

/** SHA-256 (hex) of a string, with the platform's Web Crypto. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** A hash of the content, read one piece at a time: SHA-256 over the SHA-256 of each piece. */
async function contentFingerprint(blob: Blob): Promise<string> {
  const digests: Uint8Array[] = [];
  for (let offset = 0; offset < blob.size; offset += hashPieceBytes) {
    const piece = await blob.slice(offset, offset + hashPieceBytes).arrayBuffer();
    digests.push(new Uint8Array(await crypto.subtle.digest('SHA-256', piece)));
  }
  const joined = new Uint8Array(digests.length * 32);
  digests.forEach((digest, index) => joined.set(digest, index * 32));
  return `sha256:${blob.size}:${hex(await crypto.subtle.digest('SHA-256', joined))}`;
}

/** A stream's bytes as a Blob: storage needs the size up front, and a stream tells it only at its end. */
async function streamToBlob(stream: ReadableStream<Uint8Array>): Promise<Blob> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return new Blob(chunks as BlobPart[]);
}

export async function prepareSource(source: UploadSource, files: FileAccess | undefined): Promise<PreparedSource> {
  if (typeof source === 'string') {
    // Kino fetches a URL itself: not an upload, and no file of that name.
    if (/^https?:\/\//i.test(source)) {
      throw new KinoError(
        `${source} is a URL: Kino fetches it itself with videos.ingest(orgId, envId, { url, ... }), not uploads.upload`,
      );
    }
    if (!files) {
      throw new KinoError(
        `a file path needs a file system: import { Kino } from '@kino/sdk/node' (or pass the bytes, a Blob or a stream) to upload ${source}`,
      );
    }
    const opened = await files.open(source);
    return {
      blob: opened.blob,
      name: source.split(/[\\/]/).pop(),
      fingerprint: async () => `file:${opened.fingerprint}`,
    };
  }
  if (source instanceof Blob) {
    const file = typeof File !== 'undefined' && source instanceof File ? source : undefined;
    return {
      blob: source,
      name: file?.name || undefined,
      // A File names itself (name, size, modification time); other Blobs are known by their content.
      fingerprint:
        file && file.lastModified
          ? async () => `file:${file.name}:${file.size}:${file.lastModified}`
          : () => contentFingerprint(source),
    };
  }
  let blob: Blob;
  if (source instanceof ReadableStream) blob = await streamToBlob(source);
  // Copies into a fresh ArrayBuffer-backed view: Blob takes no SharedArrayBuffer-backed bytes.
  else blob = new Blob([source instanceof ArrayBuffer ? source : new Uint8Array(source)]);
  return { blob, name: undefined, fingerprint: () => contentFingerprint(blob) };
}
