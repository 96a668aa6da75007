import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type { Image } from '../types.ts';

/** Bytes as base64, in Node and in browsers alike (btoa takes a binary string). */
function base64Of(bytes: Uint8Array): string {
  let binary = '';
  // In pieces: String.fromCharCode takes its arguments on the stack.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

export class Images {
  private readonly http: HttpClient;
  constructor(http: HttpClient) {
    this.http = http;
  }

  /**
   * Uploads an image of the environment (a PNG or JPEG of at most 2 MB) and resolves with its id,
   * which a `watermark` names (on a process or ingest call, or as the environment's default).
   * @example
   * const logo = await kino.images.upload(orgId, envId, await readFile('logo.png'));
   * await kino.videos.process(orgId, envId, {
   *   storagePath, videoQuality: 'standard', allowPublicAccess: true,
   *   watermark: { imageId: logo.imageId, position: 'top-right', widthPercent: 10 },
   * });
   */
  upload(orgId: string, envId: string, image: Uint8Array, options: CallOptions = {}): APIPromise<Image> {
    return this.http.request<Image>(
      'POST',
      `/${encodeURIComponent(orgId)}/environments/${encodeURIComponent(envId)}/images`,
      { ...options, body: { content: base64Of(image) } },
    );
  }
}
