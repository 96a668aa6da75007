import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type { SignedPlaybackUrl, SignedUrlParams } from '../types.ts';

export class Playback {
  private readonly http: HttpClient;
  constructor(http: HttpClient) {
    this.http = http;
  }

  /**
   * A signed master-playlist URL on the delivery host for a private video (server side only:
   * tokens must never be made in client code).
   * @example
   * const { signed_url, expires_in } = await kino.playback.signedUrl(orgId, videoId, {
   *   expiration: '4h',
   *   domains: ['example.com'],
   * });
   */
  signedUrl(
    orgId: string,
    videoId: string,
    params: SignedUrlParams = {},
    options: CallOptions = {},
  ): APIPromise<SignedPlaybackUrl> {
    return this.http.request<SignedPlaybackUrl>(
      'GET',
      `/${encodeURIComponent(orgId)}/videos/${encodeURIComponent(videoId)}/signed-url`,
      {
        ...options,
        query: { expiration: params.expiration, domains: params.domains?.join(',') },
      },
    );
  }
}
