import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type {
  CreateLiveStreamParams,
  DeletedLiveStream,
  ListLiveStreamsParams,
  LiveStream,
  LiveStreamList,
  LiveStreamPlaybackUrlParams,
  SignedPlaybackUrl,
  UpdateLiveStreamParams,
} from '../types.ts';

/** Live streams (issue 56): an encoder publishes to one over RTMP or SRT; each broadcast becomes a video. */
export class LiveStreams {
  private readonly http: HttpClient;
  constructor(http: HttpClient) {
    this.http = http;
  }

  /**
   * Creates a stream in an environment: its key and ingest URLs are in the answer.
   * @example
   * const stream = await kino.liveStreams.create(orgId, envId, { name: 'Sunday service', allowPublicAccess: true });
   * console.log(`OBS: server ${stream.ingest.rtmp}, key ${stream.streamKey}`);
   */
  create(
    orgId: string,
    envId: string,
    params: CreateLiveStreamParams = {},
    options: CallOptions = {},
  ): APIPromise<LiveStream> {
    return this.http.request<LiveStream>('POST', `${envPath(orgId, envId)}/live-streams`, { ...options, body: params });
  }

  /**
   * A page of an environment's streams, newest first.
   * @example
   * const { liveStreams, pagination } = await kino.liveStreams.list(orgId, envId, { pageSize: 50 });
   */
  list(
    orgId: string,
    envId: string,
    params: ListLiveStreamsParams = {},
    options: CallOptions = {},
  ): APIPromise<LiveStreamList> {
    return this.http.request<LiveStreamList>('GET', `${envPath(orgId, envId)}/live-streams`, {
      ...options,
      query: { page: params.page, pageSize: params.pageSize },
    });
  }

  /**
   * One stream: its status, settings, key, ingest URLs and playback.
   * @example
   * const { status, activeVideoId } = await kino.liveStreams.get(orgId, 'ls_7Qw2Er4Ty6Ui8Op0');
   */
  get(orgId: string, liveStreamId: string, options: CallOptions = {}): APIPromise<LiveStream> {
    return this.http.request<LiveStream>('GET', streamPath(orgId, liveStreamId), options);
  }

  /**
   * Changes the settings given (at least one); a broadcast running keeps the ones it started with.
   * @example
   * await kino.liveStreams.update(orgId, liveStreamId, { latency: 'standard' });
   */
  update(
    orgId: string,
    liveStreamId: string,
    changes: UpdateLiveStreamParams,
    options: CallOptions = {},
  ): APIPromise<LiveStream> {
    return this.http.request<LiveStream>('PATCH', streamPath(orgId, liveStreamId), { ...options, body: changes });
  }

  /**
   * Deletes a stream that is not broadcasting (409 `live_stream_active` otherwise); its recordings stay.
   * @example
   * await kino.liveStreams.delete(orgId, liveStreamId);
   */
  delete(orgId: string, liveStreamId: string, options: CallOptions = {}): APIPromise<DeletedLiveStream> {
    return this.http.request<DeletedLiveStream>('DELETE', streamPath(orgId, liveStreamId), options);
  }

  /**
   * A new stream key; the old one stops working at once.
   * @example
   * const { streamKey } = await kino.liveStreams.resetStreamKey(orgId, liveStreamId);
   */
  resetStreamKey(orgId: string, liveStreamId: string, options: CallOptions = {}): APIPromise<LiveStream> {
    return this.http.request<LiveStream>('POST', `${streamPath(orgId, liveStreamId)}/reset-stream-key`, options);
  }

  /**
   * Ingest refuses the stream's key until it is enabled again.
   * @example
   * await kino.liveStreams.disable(orgId, liveStreamId);
   */
  disable(orgId: string, liveStreamId: string, options: CallOptions = {}): APIPromise<LiveStream> {
    return this.http.request<LiveStream>('POST', `${streamPath(orgId, liveStreamId)}/disable`, options);
  }

  /**
   * Lets the stream's key publish again.
   * @example
   * await kino.liveStreams.enable(orgId, liveStreamId);
   */
  enable(orgId: string, liveStreamId: string, options: CallOptions = {}): APIPromise<LiveStream> {
    return this.http.request<LiveStream>('POST', `${streamPath(orgId, liveStreamId)}/enable`, options);
  }

  /**
   * A signed master-playlist URL of a private stream (server side only, as for videos).
   * @example
   * const { signed_url } = await kino.liveStreams.playbackUrl(orgId, liveStreamId, { expiration: '4h' });
   */
  playbackUrl(
    orgId: string,
    liveStreamId: string,
    params: LiveStreamPlaybackUrlParams = {},
    options: CallOptions = {},
  ): APIPromise<SignedPlaybackUrl> {
    return this.http.request<SignedPlaybackUrl>('POST', `${streamPath(orgId, liveStreamId)}/playback-url`, {
      ...options,
      body: params,
    });
  }
}

const envPath = (orgId: string, envId: string) =>
  `/${encodeURIComponent(orgId)}/environments/${encodeURIComponent(envId)}`;
const streamPath = (orgId: string, liveStreamId: string) =>
  `/${encodeURIComponent(orgId)}/live-streams/${encodeURIComponent(liveStreamId)}`;
