import { UploadError } from '../errors.ts';
import type { HttpClient } from '../http.ts';
import type { CreateUploadUrlParams, UploadContentType, UploadTicket } from '../types.ts';

/** What `putFile` uploads: a file path (Node), or the bytes themselves. */
export type UploadSource = string | Uint8Array | ArrayBuffer | Blob;

const contentTypesByExtension: Record<string, UploadContentType> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
};

/** The upload content type a file name suggests (`video/mp4` when it suggests none). */
export function contentTypeFor(filename: string): UploadContentType {
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? '';
  return contentTypesByExtension[extension] ?? 'video/mp4';
}

async function toBlob(source: UploadSource): Promise<Blob> {
  if (typeof source === 'string') {
    // A Blob backed by the file: sent with its length, never read into memory whole.
    const { openAsBlob } = await import('node:fs');
    return openAsBlob(source);
  }
  if (source instanceof Blob) return source;
  // Copies into a fresh ArrayBuffer-backed view: Blob takes no SharedArrayBuffer-backed bytes.
  return new Blob([source instanceof ArrayBuffer ? source : new Uint8Array(source)]);
}

export class Uploads {
  constructor(private readonly http: HttpClient) {}

  /**
   * Asks for a signed upload URL, valid for one hour. Upload to it with `putFile`, then process
   * the ticket's `bucketPath` with `videos.process`.
   * @example
   * const ticket = await kino.uploads.createUrl(orgId, envId, { filename: 'talk.mp4', fileSize: 48_213_331 });
   */
  createUrl(orgId: string, envId: string, params: CreateUploadUrlParams, options: { signal?: AbortSignal } = {}): Promise<UploadTicket> {
    return this.http.request<UploadTicket>(
      'POST',
      `/${encodeURIComponent(orgId)}/environments/${encodeURIComponent(envId)}/videos/upload-url`,
      { ...options, body: params },
    );
  }

  /**
   * PUTs the file to the ticket's signed URL, straight to storage (no API key is sent). The
   * Content-Type must be the one the ticket was made for.
   * @example
   * await kino.uploads.putFile(ticket, './talk.mp4', 'video/mp4');
   * await kino.uploads.putFile(ticket, await readFile('./talk.mp4'));
   */
  async putFile(ticket: Pick<UploadTicket, 'signedURL'>, source: UploadSource, contentType: UploadContentType = 'video/mp4', options: { signal?: AbortSignal } = {}): Promise<void> {
    const body = await toBlob(source);
    // Sent in chunks with its length (storage needs it; chunked transfer encoding is refused),
    // timed by progress rather than in total: see `FetchOptions.upload`.
    const response = await this.http.fetchWithRetries(
      ticket.signedURL,
      { method: 'PUT', headers: { 'Content-Type': contentType, 'Content-Length': String(body.size) } },
      { signal: options.signal, upload: body },
    );
    const text = await response.text();
    if (!response.ok) throw new UploadError(response.status, text);
  }

  /**
   * Both steps at once: a signed URL for the file, then the upload. Returns the ticket, whose
   * `bucketPath` goes to `videos.process`.
   * @example
   * const ticket = await kino.uploads.upload(orgId, envId, './talk.mov');
   * const { videoID } = await kino.videos.process(orgId, envId, {
   *   storagePath: ticket.bucketPath, videoQuality: 'standard', allowPublicAccess: true,
   * });
   */
  async upload(
    orgId: string,
    envId: string,
    source: UploadSource,
    { filename, contentType, signal }: { filename?: string; contentType?: UploadContentType; signal?: AbortSignal } = {},
  ): Promise<UploadTicket> {
    const name = filename ?? (typeof source === 'string' ? source.split(/[\\/]/).pop()! : 'upload.mp4');
    const type = contentType ?? contentTypeFor(name);
    const blob = await toBlob(source);
    const ticket = await this.createUrl(orgId, envId, { filename: name, fileSize: blob.size, contentType: type }, { signal });
    await this.putFile(ticket, blob, type, { signal });
    return ticket;
  }
}
