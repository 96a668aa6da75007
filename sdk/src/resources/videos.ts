import { VideoProcessingFailedError, WaitTimeoutError } from '../errors.ts';
import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import { PagePromise } from '../pagination.ts';
import type {
  AddAudioTrackParams,
  AddCaptionParams,
  AudioTrack,
  CaptionTrack,
  CreateClipParams,
  CreateShareLinkParams,
  DeletedAudioTrack,
  DeletedCaptionTrack,
  GenerateCaptionsParams,
  GeneratingCaptionTrack,
  TranscriptParams,
  Transcript,
  CreateThumbnailParams,
  DeleteReason,
  DeleteVideoResult,
  IngestVideoParams,
  ListVideosParams,
  OrganizationVideo,
  ProcessVideoParams,
  ProcessVideoResult,
  RetryVideoResult,
  RevokedShareLink,
  ShareLink,
  Thumbnail,
  UpdateVideoParams,
  Video,
  VideoDetails,
  VideoList,
} from '../types.ts';

export interface WaitUntilReadyOptions {
  /** Default 30 minutes. */
  timeoutMs?: number;
  /** Between two looks at the details; default 2 s. */
  intervalMs?: number;
  signal?: AbortSignal;
  /** Called with the details after each look. */
  onPoll?: (video: VideoDetails) => void;
}

const org = (orgId: string) => `/${encodeURIComponent(orgId)}`;

export class Videos {
  private readonly http: HttpClient;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  constructor(http: HttpClient, sleep: (ms: number, signal?: AbortSignal) => Promise<void>) {
    this.http = http;
    this.sleep = sleep;
  }

  /**
   * Starts processing an uploaded file (the upload ticket's `bucketPath`). The video starts in
   * `transcoding`; a second call for the same file answers 409 (`ConflictError`).
   * @example
   * const { videoID } = await kino.videos.process(orgId, envId, {
   *   storagePath: ticket.bucketPath,
   *   videoQuality: 'high',
   *   allowPublicAccess: false,
   *   videoName: 'Launch keynote',
   * });
   */
  process(
    orgId: string,
    envId: string,
    params: ProcessVideoParams,
    options: CallOptions = {},
  ): APIPromise<ProcessVideoResult> {
    return this.http.request<ProcessVideoResult>(
      'POST',
      `${org(orgId)}/environments/${encodeURIComponent(envId)}/videos/process`,
      { ...options, body: params },
    );
  }

  /**
   * Makes a video from a URL: Kino fetches the file itself, then processes it as an upload. The
   * video starts in `transcoding`; a source that cannot be fetched or is not a video ends `failed`
   * (see `waitUntilReady`).
   * @example
   * const { videoID } = await kino.videos.ingest(orgId, envId, {
   *   url: 'https://example.com/launch.mp4',
   *   videoQuality: 'standard',
   *   allowPublicAccess: true,
   * });
   */
  ingest(
    orgId: string,
    envId: string,
    params: IngestVideoParams,
    options: CallOptions = {},
  ): APIPromise<ProcessVideoResult> {
    return this.http.request<ProcessVideoResult>(
      'POST',
      `${org(orgId)}/environments/${encodeURIComponent(envId)}/videos/ingest`,
      { ...options, body: params },
    );
  }

  /**
   * Cuts a clip out of a ready video: a new video in the same environment, ready when this
   * resolves, that plays the source's segments overlapping [startTime, endTime) and stays playable
   * after the source is deleted. With `frameAccurate: true` it plays exactly [startTime, endTime)
   * and is transcoding when this resolves (its first and last segments are encoded again).
   * @example
   * const { videoID } = await kino.videos.createClip(orgId, 'vid_123', { startTime: 30, endTime: 45 });
   */
  createClip(
    orgId: string,
    videoId: string,
    params: CreateClipParams,
    options: CallOptions = {},
  ): APIPromise<ProcessVideoResult> {
    return this.http.request<ProcessVideoResult>('POST', `${org(orgId)}/videos/${encodeURIComponent(videoId)}/clips`, {
      ...options,
      body: params,
    });
  }

  /**
   * The videos of an environment, one page at a time. Await it for a page; `for await` it to walk
   * every video of every page.
   * @example
   * const page = await kino.videos.list(orgId, envId, { status: 'ready', pageSize: 50 });
   * console.log(page.pagination.total);
   * for await (const video of kino.videos.list(orgId, envId, { search: 'keynote' })) console.log(video.name);
   * const broadcasts = await kino.videos.list(orgId, envId, { liveStreamId: 'ls_123' });
   */
  list(orgId: string, envId: string, params: ListVideosParams = {}, options: CallOptions = {}): PagePromise<Video> {
    const path = `${org(orgId)}/environments/${encodeURIComponent(envId)}/videos`;
    return new PagePromise(params.page ?? 1, (page) =>
      this.http.request<VideoList>('GET', path, { ...options, query: { ...params, page } }),
    );
  }

  /**
   * The videos of every environment of the organization the key may see; items add `envId`.
   * @example
   * for await (const video of kino.videos.listAll(orgId)) console.log(video.envId, video.id, video.status);
   */
  listAll(orgId: string, params: ListVideosParams = {}, options: CallOptions = {}): PagePromise<OrganizationVideo> {
    return new PagePromise(params.page ?? 1, (page) =>
      this.http.request<VideoList<OrganizationVideo>>('GET', `${org(orgId)}/videos`, {
        ...options,
        query: { ...params, page },
      }),
    );
  }

  /**
   * A video's details: status flags, parameters and the encoding ladder.
   * @example
   * const video = await kino.videos.get(orgId, 'vid_123');
   * if (video.status.ready) console.log(video.encodings.map((e) => e.key));
   */
  get(orgId: string, videoId: string, options: CallOptions = {}): APIPromise<VideoDetails> {
    return this.http.request<VideoDetails>(
      'GET',
      `${org(orgId)}/videos/${encodeURIComponent(videoId)}/details`,
      options,
    );
  }

  /**
   * Changes a video's name, description, access or metadata; resolves with its details after the
   * change. A video made private needs a token on the delivery host within seconds.
   * @example
   * await kino.videos.update(orgId, 'vid_123', { videoName: 'Keynote', metadata: { externalId: 'post-42' } });
   * const [video] = (await kino.videos.list(orgId, envId, { externalId: 'post-42' })).videos;
   */
  update(
    orgId: string,
    videoId: string,
    changes: UpdateVideoParams,
    options: CallOptions = {},
  ): APIPromise<VideoDetails> {
    return this.http.request<VideoDetails>('PATCH', `${org(orgId)}/videos/${encodeURIComponent(videoId)}`, {
      ...options,
      body: changes,
    });
  }

  /**
   * Deletes a video: hidden at once, its files removed later, its analytics kept. Deleting twice
   * answers 400 `already_deleted` (`BadRequestError`).
   * @example
   * await kino.videos.delete(orgId, 'vid_123', { reason: 'user_request' });
   */
  delete(
    orgId: string,
    videoId: string,
    { reason, ...options }: { reason?: DeleteReason } & CallOptions = {},
  ): APIPromise<DeleteVideoResult> {
    return this.http.request<DeleteVideoResult>('DELETE', `${org(orgId)}/videos/${encodeURIComponent(videoId)}`, {
      ...options,
      body: reason ? { reason } : undefined,
    });
  }

  /**
   * Sends a `failed` video back to `transcoding`, with the same file and parameters.
   * @example
   * await kino.videos.retry(orgId, 'vid_123');
   * await kino.videos.waitUntilReady(orgId, 'vid_123');
   */
  retry(orgId: string, videoId: string, options: CallOptions = {}): APIPromise<RetryVideoResult> {
    return this.http.request<RetryVideoResult>(
      'POST',
      `${org(orgId)}/videos/${encodeURIComponent(videoId)}/retry`,
      options,
    );
  }

  /**
   * Polls the details until the video is `ready` (resolves with them) or `failed` (rejects with
   * `VideoProcessingFailedError`); `WaitTimeoutError` when it is still transcoding at the deadline.
   * @example
   * try {
   *   const video = await kino.videos.waitUntilReady(orgId, videoID, { timeoutMs: 10 * 60_000 });
   *   console.log('ready with', video.encodings.length, 'renditions');
   * } catch (error) {
   *   if (error instanceof VideoProcessingFailedError) console.error('failed', error.video.id);
   * }
   */
  async waitUntilReady(
    orgId: string,
    videoId: string,
    { timeoutMs = 30 * 60_000, intervalMs = 2000, signal, onPoll }: WaitUntilReadyOptions = {},
  ): Promise<VideoDetails> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const video = await this.get(orgId, videoId, { signal });
      onPoll?.(video);
      if (video.status.ready) return video;
      if (video.status.failed) throw new VideoProcessingFailedError(video);
      if (Date.now() + intervalMs > deadline) throw new WaitTimeoutError(videoId, timeoutMs);
      await this.sleep(intervalMs, signal);
    }
  }

  /**
   * A share link: a web-app URL and a direct delivery URL, optionally limited in time and views.
   * @example
   * const link = await kino.videos.share(orgId, 'vid_123', { expirationHours: 24, maxViews: 10 });
   * console.log(link.shareUrl, link.directUrl);
   */
  share(
    orgId: string,
    videoId: string,
    params: CreateShareLinkParams = {},
    options: CallOptions = {},
  ): APIPromise<ShareLink> {
    return this.http.request<ShareLink>('POST', `${org(orgId)}/videos/${encodeURIComponent(videoId)}/share`, {
      ...options,
      body: params,
    });
  }

  /**
   * The video's share links that are not revoked (expired and used-up ones included), oldest first.
   * @example
   * for (const link of await kino.videos.listShareLinks(orgId, 'vid_123')) console.log(link.shareUrl, link.views);
   */
  listShareLinks(orgId: string, videoId: string, options: CallOptions = {}): APIPromise<ShareLink[]> {
    return this.http
      .request<{ shareLinks: ShareLink[] }>('GET', `${org(orgId)}/videos/${encodeURIComponent(videoId)}/share`, options)
      .map((body) => body.shareLinks);
  }

  /**
   * Revokes a share link: it stops playing at once; the video's other links keep working.
   * @example
   * await kino.videos.revokeShareLink(orgId, 'vid_123', link.id);
   */
  revokeShareLink(
    orgId: string,
    videoId: string,
    linkId: string,
    options: CallOptions = {},
  ): APIPromise<RevokedShareLink> {
    return this.http.request<RevokedShareLink>(
      'DELETE',
      `${org(orgId)}/videos/${encodeURIComponent(videoId)}/share/${encodeURIComponent(linkId)}`,
      options,
    );
  }

  /**
   * A thumbnail at any timestamp (seconds), optionally made the video's default.
   * @example
   * const { url } = await kino.videos.createThumbnail(orgId, 'vid_123', { timestamp: 12.5, setAsDefault: true });
   */
  createThumbnail(
    orgId: string,
    videoId: string,
    params: CreateThumbnailParams,
    options: CallOptions = {},
  ): APIPromise<Thumbnail> {
    return this.http.request<Thumbnail>('POST', `${org(orgId)}/videos/${encodeURIComponent(videoId)}/thumbnails`, {
      ...options,
      body: params,
    });
  }

  /**
   * Adds a caption track (WebVTT, or SRT converted to WebVTT) to a ready video, replacing the track
   * of that language. A file that does not parse answers 400 `invalid_caption` naming the line.
   * @example
   * const track = await kino.videos.addCaption(orgId, 'vid_123', { language: 'en', content: await readFile('en.srt', 'utf8'), format: 'srt', default: true });
   * console.log(track.url);
   */
  addCaption(
    orgId: string,
    videoId: string,
    params: AddCaptionParams,
    options: CallOptions = {},
  ): APIPromise<CaptionTrack> {
    return this.http.request<CaptionTrack>('POST', `${org(orgId)}/videos/${encodeURIComponent(videoId)}/captions`, {
      ...options,
      body: params,
    });
  }

  /**
   * The video's caption tracks, by language.
   * @example
   * for (const track of await kino.videos.listCaptions(orgId, 'vid_123')) console.log(track.language, track.label);
   */
  listCaptions(orgId: string, videoId: string, options: CallOptions = {}): APIPromise<CaptionTrack[]> {
    return this.http
      .request<{ captions: CaptionTrack[] }>(
        'GET',
        `${org(orgId)}/videos/${encodeURIComponent(videoId)}/captions`,
        options,
      )
      .map((body) => body.captions);
  }

  /**
   * Makes a caption track from a ready video's speech, on a node with a speech engine for the
   * language (`auto`, the default: the language heard). The track appears in `listCaptions` with
   * `source: "generated"`; `video.caption.ready` goes out. 400 `unsupported_language` names the field.
   * @example
   * await kino.videos.generateCaptions(orgId, 'vid_123', { language: 'en' });
   */
  generateCaptions(
    orgId: string,
    videoId: string,
    params: GenerateCaptionsParams = {},
    options: CallOptions = {},
  ): APIPromise<GeneratingCaptionTrack> {
    return this.http.request<GeneratingCaptionTrack>(
      'POST',
      `${org(orgId)}/videos/${encodeURIComponent(videoId)}/captions/generate`,
      { ...options, body: params },
    );
  }

  /**
   * The words of one of the video's caption tracks (default: its default track, else its first);
   * with `format: 'json'`, each cue with its times.
   * @example
   * const { text } = await kino.videos.transcript(orgId, 'vid_123', { language: 'en' });
   */
  transcript(
    orgId: string,
    videoId: string,
    params: TranscriptParams = {},
    options: CallOptions = {},
  ): APIPromise<Transcript> {
    return this.http.request<Transcript>('GET', `${org(orgId)}/videos/${encodeURIComponent(videoId)}/transcript`, {
      ...options,
      query: { ...params },
    });
  }

  /**
   * Removes the video's caption track for a language; players stop offering it within seconds.
   * @example
   * await kino.videos.removeCaption(orgId, 'vid_123', 'en');
   */
  removeCaption(
    orgId: string,
    videoId: string,
    language: string,
    options: CallOptions = {},
  ): APIPromise<DeletedCaptionTrack> {
    return this.http.request<DeletedCaptionTrack>(
      'DELETE',
      `${org(orgId)}/videos/${encodeURIComponent(videoId)}/captions/${encodeURIComponent(language)}`,
      options,
    );
  }

  /**
   * Adds an audio track (a second language) to a ready video from an uploaded file, replacing the
   * added track of that language. Answers with the track `processing`; `listAudioTracks` says when
   * it is `ready` (the master playlist then offers it) or `failed` with the reason.
   * @example
   * const ticket = await kino.uploads.createUrl(orgId, envId, { filename: 'es.m4a', fileSize, contentType: 'video/mp4' });
   * await kino.uploads.putFile(ticket, bytes, 'video/mp4');
   * await kino.videos.addAudioTrack(orgId, 'vid_123', { storagePath: ticket.bucketPath, language: 'es' });
   */
  addAudioTrack(
    orgId: string,
    videoId: string,
    params: AddAudioTrackParams,
    options: CallOptions = {},
  ): APIPromise<AudioTrack> {
    return this.http.request<AudioTrack>('POST', `${org(orgId)}/videos/${encodeURIComponent(videoId)}/audio-tracks`, {
      ...options,
      body: params,
    });
  }

  /**
   * The audio tracks added to the video, by language, each with its status.
   * @example
   * for (const track of await kino.videos.listAudioTracks(orgId, 'vid_123')) console.log(track.language, track.status);
   */
  listAudioTracks(orgId: string, videoId: string, options: CallOptions = {}): APIPromise<AudioTrack[]> {
    return this.http
      .request<{ audioTracks: AudioTrack[] }>(
        'GET',
        `${org(orgId)}/videos/${encodeURIComponent(videoId)}/audio-tracks`,
        options,
      )
      .map((body) => body.audioTracks);
  }

  /**
   * Removes the video's added audio track for a language; players stop offering it within seconds.
   * @example
   * await kino.videos.removeAudioTrack(orgId, 'vid_123', 'es');
   */
  removeAudioTrack(
    orgId: string,
    videoId: string,
    language: string,
    options: CallOptions = {},
  ): APIPromise<DeletedAudioTrack> {
    return this.http.request<DeletedAudioTrack>(
      'DELETE',
      `${org(orgId)}/videos/${encodeURIComponent(videoId)}/audio-tracks/${encodeURIComponent(language)}`,
      options,
    );
  }
}
