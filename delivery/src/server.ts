// The delivery node's HTTP server. Plain node:http rather than Fastify: the hot path is one regex
// route and a cached buffer written to a socket, and the benchmark (bench/delivery) measures it
// against nginx, so every microsecond a framework spends on routing hooks and schema-less replies
// would show. There is no API key here; public videos play freely, private ones with a token.
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { answerClientError, applyHttpServerLimits, httpServerOptions, serveMetrics, StorageUnavailableError, type Logger, type Registry } from '@kino/infra';
import {
  addSubtitlesToMaster,
  audioDownloadContentType,
  audioDownloadName,
  deliveryPaths,
  embedPaths,
  hlsContentTypes,
  shareLinkPaths,
  storyboardContentTypes,
  storyboardVttName,
} from '@kino/proto/contract';
import { CaptionFiles, isCaptionResource, type CaptionResource } from './captions.ts';
import { DatabaseUnavailableError } from '@kino/database';
import { DeliveryError, clientClosedRequest, databaseUnavailable, downloadNotReady, segmentStillBeingMade, storageUnavailable, videoNotFound } from './errors.ts';
import { bytesOf, contentEtag, type CachedObject, type ObjectCache, type UncachedObject } from './object-cache.ts';
import { writeFill, type ObjectFill } from './fill.ts';
import { validatePlaybackParams } from './playback-params.ts';
import type { PlaybackTokenVerifier } from './playback-auth.ts';
import { writeMp4Range, type Mp4Downloads } from './mp4-download.ts';
import { embedSize, iframeHtml, parseEmbeddableUrl, parseMaxSize, type OembedVideo } from './oembed.ts';
import {
  familyUriOf,
  mediaKeyOf,
  parseDeliveryPath,
  qualityHeight,
  storageKeyOf,
  THUMBNAIL_MAX_EDGE,
  THUMBNAIL_MIN_EDGE,
  type DeliveryRoute,
  type Family,
  type Resource,
} from './paths.ts';
import { messagePage, playerAsset, playerPage, playerPageCsp } from './player-page.ts';
import { rewritePlaylist } from './playlist.ts';
import { rewriteStoryboardVtt } from './storyboards.ts';
import { PacedBodyWriter } from './paced-body-writer.ts';
import { parseRange } from './range.ts';
import type { DeliveryMetrics } from './metrics.ts';
import type { SegmentDelivery } from '@kino/analytics';
import type { SegmentLog } from './segment-log.ts';
import type { SegmentWaits } from './segment-waits.ts';
import { watchPage, type ShareLinkGate } from './share-links.ts';
import type { ThumbnailMaker } from './thumbnails.ts';
import type { PlayableVideo, VideoCatalog } from './video-catalog.ts';

export interface DeliveryDeps {
  catalog: Pick<VideoCatalog, 'get' | 'fresh'>;
  cache: Pick<ObjectCache, 'get' | 'open' | 'getUncached'>;
  tokens: Pick<PlaybackTokenVerifier, 'authorize'>;
  segments: Pick<SegmentLog, 'record'>;
  thumbnails: Pick<ThumbnailMaker, 'get'>;
  shareLinks: Pick<ShareLinkGate, 'open'>;
  downloads: Mp4Downloads;
  /** Segments of a video still being made, made on request (segment-waits.ts). */
  segmentWaits: Pick<SegmentWaits, 'wait' | 'untilComplete'>;
  logger: Logger;
  /** The node's metrics (metrics.ts) and the registry `GET /metrics` serves, behind METRICS_TOKEN when set. */
  metrics: { counters: DeliveryMetrics; registry: Registry; token?: string };
}

// CORS exactly as the spec's Authentication part says, on every response (preflights included),
// plus the headers a player needs to read from cross-origin responses.
const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Range, Content-Type',
  'Access-Control-Max-Age': '3600',
  'Access-Control-Expose-Headers': 'Content-Length, Content-Range, ETag',
} as const;

// Segments and init segments never change once a video is ready; playlists are short-lived so a
// deleted video stops being offered soon. A master playlist is revalidated on every load (its ETag
// makes that a 304): it names the caption tracks, which change under the same URL, and a player
// made after a track was added must see it. Anything a token opened is `private` (no shared cache).
const cacheControl = {
  media: { public: 'public, max-age=31536000, immutable', private: 'private, max-age=31536000, immutable' },
  master: { public: 'public, no-cache', private: 'private, no-cache' },
  playlist: { public: 'public, max-age=10', private: 'private, max-age=10' },
  thumbnail: { public: 'public, max-age=3600', private: 'private, max-age=3600' },
} as const;

interface Body {
  contentType: string;
  cacheControl: string;
  etag: string;
  size: number;
  data?: Buffer;
  path?: string;
  /** A cache miss still arriving from storage: the bytes are streamed from it as they come. */
  fill?: ObjectFill;
  /**
   * Set for media segments: the segment log's row (its `bytes` filled in when the body is sent) and
   * the path family (metrics). Made for this request alone, so sendBody completes it in place.
   */
  segment?: { delivery: SegmentDelivery; family: Family };
  /** A body assembled from several objects (an MP4 download) writes its bytes [start, end] itself. */
  write?: (start: number, end: number, res: ServerResponse) => Promise<void>;
  contentDisposition?: string;
  /** Pages only: their Content-Security-Policy. */
  contentSecurityPolicy?: string;
}

const maxRewrittenPlaylists = 5_000;
const diskReadBytes = 512 * 1024;
/**
 * Bodies from memory (cached segments, playlists) leave at most 8 MB (four 720p segments) per turn
 * of the event loop, so the loop comes back to accept new connections every few milliseconds
 * however busy it is (paced-body-writer.ts). One for the process: the loop it paces is the process's.
 */
const memoryBodies = new PacedBodyWriter(8 * 1024 * 1024);

export function createDeliveryServer(deps: DeliveryDeps): Server {
  const { logger } = deps;
  // Rewritten playlists that carry no token are the same for every viewer: make them once.
  const rewritten = new Map<string, { data: Buffer; etag: string }>();
  const captionFiles = new CaptionFiles(deps.cache);

  const { counters } = deps.metrics;

  /**
   * A segment served: its row in the segment log and the metrics' counters (counters only: the hot
   * path). The segment's bytes go out once the returned promise resolves (the row is written).
   */
  function recordSegment(delivery: SegmentDelivery, family: Family): Promise<void> {
    counters.segments.count(family, delivery.access, delivery.bytes);
    return deps.segments.record(delivery);
  }

  /** Answers the request, setting `route.label` for the request metrics (a pattern, never the URL). */
  async function handle(req: IncomingMessage, res: ServerResponse, route: { label: string }): Promise<void> {
    const method = req.method;
    if (method === 'OPTIONS') {
      route.label = 'preflight';
      res.writeHead(204, { ...corsHeaders, 'Content-Length': '0' });
      res.end();
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      throw new DeliveryError(405, 'method_not_allowed', `${method} is not served here: use GET or HEAD.`, undefined, { Allow: 'GET, HEAD, OPTIONS' });
    }
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const params = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
    if (path === '/metrics') {
      route.label = 'metrics';
      await serveMetrics(deps.metrics.registry, deps.metrics.token, req, res);
      return;
    }
    const parsed = parseDeliveryPath(path);
    if (!parsed) throw new DeliveryError(404, 'not_found', `Nothing is served at ${path}.`);
    route.label = routeLabel(parsed);
    await answer(req, res, parsed, params);
  }

  async function answer(req: IncomingMessage, res: ServerResponse, route: DeliveryRoute, params: URLSearchParams): Promise<void> {
    if (route.kind === 'health') {
      sendJson(req, res, 200, { status: 'ok' });
      return;
    }
    if (route.kind === 'invalid_thumbnail_size') {
      throw new DeliveryError(400, 'invalid_thumbnail_size', `Thumbnail sizes are 16 to 3840 pixels on each edge; ${route.width}x${route.height} is not.`, [
        { message: 'width and height must each be 16 to 3840', location: 'path.size', value: `${route.width}x${route.height}` },
      ]);
    }
    if (route.kind === 'player_asset') {
      const data = (await playerAsset(route.path))!;
      await sendBody(recordSegment, req, res, { data, etag: contentEtag(data), size: data.length, contentType: 'text/javascript; charset=utf-8', cacheControl: 'public, max-age=86400' });
      return;
    }
    if (route.kind === 'share_page') {
      const origin = originOf(req);
      const data = watchPage(route.linkId, oembedUrl(origin, `${origin}${shareLinkPaths.page(route.linkId)}`));
      await sendBody(recordSegment, req, res, { ...pageBody(data), cacheControl: 'public, max-age=3600' });
      return;
    }
    if (route.kind === 'embed_page') {
      await sendEmbedPage(req, res, route.videoId, params);
      return;
    }
    if (route.kind === 'oembed') {
      sendJson(req, res, 200, await oembed(req, params));
      return;
    }
    const paramErrors = validatePlaybackParams(params);
    if (paramErrors.length > 0) {
      throw new DeliveryError(400, 'invalid_playback_parameters', 'A playback query parameter has an invalid value.', paramErrors);
    }
    if (route.kind === 'share') {
      await sendShared(req, res, route);
      return;
    }
    const video = await deps.catalog.get(route.videoId);
    if (!video) throw videoNotFound(route.videoId);
    if (route.kind === 'playback' && route.family === 'public' && (route.orgId !== video.orgId || route.envId !== video.envId)) {
      throw videoNotFound(route.videoId);
    }

    // Private paths always need a token; a private video needs one on every path.
    const family: Family | 'thumbnail' = route.kind === 'thumbnail' ? 'thumbnail' : route.family;
    const needsToken = family === 'private' || !video.allowPublicAccess;
    const token = needsToken ? params.get('token') : null;
    if (needsToken) {
      const what = route.kind === 'thumbnail' ? 'image' : 'playback';
      await deps.tokens.authorize(token, video.id, { origin: header(req, 'origin'), referer: header(req, 'referer') }, what);
    }
    const access = needsToken ? 'private' : 'public';

    const body =
      route.kind === 'thumbnail'
        ? await thumbnailBody(video, route, access)
        : route.resource.type === 'download' || route.resource.type === 'audio_download'
          ? await downloadBody(video, route.family, route.resource, access, res)
          : route.resource.type === 'storyboard' || route.resource.type === 'storyboard_sheet'
            ? await storyboardBody(video, route.resource, access, token)
            : isCaptionResource(route.resource)
              ? await captionBody(video, route.resource, access, token)
              : await playbackBody(video, route, access, token, res);
    await sendBody(recordSegment, req, res, body);
  }

  /** A file of a share link's video: the link is the credential (share-links.ts). */
  async function sendShared(req: IncomingMessage, res: ServerResponse, route: Extract<DeliveryRoute, { kind: 'share' }>): Promise<void> {
    const isMaster = route.resource.type === 'master';
    // The video is checked before a view is counted, so a link of a deleted video spends nothing.
    const video = await deps.catalog.get(await deps.shareLinks.open(route.linkId, { countView: false }));
    if (!video) throw new DeliveryError(404, 'video_not_found', 'The video of this share link was deleted or is not playable.');
    if (isMaster) await deps.shareLinks.open(route.linkId, { countView: true });
    const access = video.allowPublicAccess ? 'public' : 'private';
    const body = isCaptionResource(route.resource)
      ? await captionBody(video, route.resource, access, null)
      : await playbackBody(video, { kind: 'playback', family: 'share', videoId: video.id, resource: route.resource }, access, null, res);
    // Each master load is a counted view: no cache may answer one in delivery's place.
    await sendBody(recordSegment, req, res, isMaster ? { ...body, cacheControl: 'no-store' } : body);
  }

  /**
   * `/embed/{videoId}`: the player page, or a page saying why it cannot play (a deleted or unready
   * video: 404; a private one without a valid token: the token's 401 or 403), in the iframe's frame.
   */
  async function sendEmbedPage(req: IncomingMessage, res: ServerResponse, videoId: string, params: URLSearchParams): Promise<void> {
    const video = await deps.catalog.get(videoId);
    if (!video) {
      await sendBody(recordSegment, req, res, { ...pageBody(messagePage('Video not found', 'This video does not exist, was deleted or is not ready yet.')), cacheControl: 'no-store' }, 404);
      return;
    }
    const token = video.allowPublicAccess ? null : params.get('token');
    if (!video.allowPublicAccess) {
      try {
        await deps.tokens.authorize(token, video.id, { origin: header(req, 'origin'), referer: header(req, 'referer') });
      } catch (error) {
        if (!(error instanceof DeliveryError) || error.status >= 500) throw error;
        await sendBody(recordSegment, req, res, { ...pageBody(messagePage('Private video', error.detail)), cacheControl: 'no-store' }, error.status);
        return;
      }
    }
    const file = (name: string) =>
      token ? `${deliveryPaths.privateFile(video.id, name)}?token=${encodeURIComponent(token)}` : deliveryPaths.publicFile(video.orgId, video.envId, video.id, name);
    const origin = originOf(req);
    const page = playerPage({
      title: video.name,
      src: file('master.m3u8'),
      ...(video.storyboardKey ? { storyboard: file(storyboardVttName) } : {}),
      oembed: oembedUrl(origin, `${origin}${req.url ?? embedPaths.page(video.id)}`),
    });
    // Short-lived like playlists: a renamed, deleted or privatised video changes the page.
    await sendBody(recordSegment, req, res, { ...pageBody(page), cacheControl: cacheControl.playlist[token ? 'private' : 'public'] });
  }

  /** `/oembed?url=`: oEmbed 1.0 JSON for an embed or share URL of this host (oembed.ts). */
  async function oembed(req: IncomingMessage, params: URLSearchParams): Promise<OembedVideo> {
    const format = params.get('format');
    if (format !== null && format !== 'json') {
      throw new DeliveryError(501, 'format_not_implemented', `oEmbed answers in json only, not ${format}.`);
    }
    const max = parseMaxSize(params);
    const target = parseEmbeddableUrl(params.get('url'), header(req, 'host'));
    const origin = originOf(req);
    let video: PlayableVideo | undefined;
    let src: string;
    /** What opens the thumbnail: nothing for a public video; the token for a private embed; none for a private share link. */
    let thumbnailAccess: string | null = '';
    if (target.kind === 'embed') {
      video = await deps.catalog.get(target.videoId);
      if (!video) throw videoNotFound(target.videoId);
      src = `${origin}${embedPaths.page(video.id)}`;
      if (!video.allowPublicAccess) {
        await deps.tokens.authorize(target.token, video.id, { origin: header(req, 'origin'), referer: header(req, 'referer') });
        const query = `?token=${encodeURIComponent(target.token!)}`;
        src += query;
        thumbnailAccess = query;
      }
    } else {
      video = await deps.catalog.get(await deps.shareLinks.open(target.linkId, { countView: false }));
      if (!video) throw new DeliveryError(404, 'video_not_found', 'The video of this share link was deleted or is not playable.');
      src = `${origin}${shareLinkPaths.page(target.linkId)}`;
      if (!video.allowPublicAccess) thumbnailAccess = null;
    }
    const size = embedSize(video.width && video.height ? { width: video.width, height: video.height } : null, max);
    const thumbnail = embedSize(size, { maxwidth: THUMBNAIL_MAX_EDGE, maxheight: THUMBNAIL_MAX_EDGE });
    const hasThumbnail = video.thumbnailKey !== null && thumbnailAccess !== null && Math.min(thumbnail.width, thumbnail.height) >= THUMBNAIL_MIN_EDGE;
    return {
      version: '1.0',
      type: 'video',
      provider_name: 'Kino',
      title: video.name,
      width: size.width,
      height: size.height,
      html: iframeHtml(src, video.name, size),
      ...(hasThumbnail
        ? {
            thumbnail_url: `${origin}${deliveryPaths.thumbnail(video.id, thumbnail.width, thumbnail.height)}${thumbnailAccess}`,
            thumbnail_width: thumbnail.width,
            thumbnail_height: thumbnail.height,
          }
        : {}),
    };
  }

  async function thumbnailBody(
    video: PlayableVideo,
    route: Extract<DeliveryRoute, { kind: 'thumbnail' }>,
    access: 'public' | 'private',
  ): Promise<Body> {
    const object = await deps.thumbnails.get(video, route.width, route.height, route.custom);
    if (!object) throw new DeliveryError(404, 'thumbnail_not_found', `Video ${video.id} has no thumbnail yet.`);
    return { ...objectBody(object), contentType: hlsContentTypes.thumbnail, cacheControl: cacheControl.thumbnail[access] };
  }

  async function storyboardBody(
    video: PlayableVideo,
    resource: Extract<Resource, { type: 'storyboard' | 'storyboard_sheet' }>,
    access: 'public' | 'private',
    token: string | null,
  ): Promise<Body> {
    const key = storageKeyOf(video.id, resource);
    const object = video.storyboardKey ? await deps.cache.get(key) : undefined;
    if (!object) throw new DeliveryError(404, 'storyboard_not_found', `Video ${video.id} has no such storyboard file.`);
    if (resource.type === 'storyboard_sheet') {
      return { ...objectBody(object), contentType: storyboardContentTypes.sheet, cacheControl: cacheControl.media[access] };
    }
    // The VTT is short-lived like a playlist (a deleted video stops offering its sheets soon).
    const vtt = { contentType: storyboardContentTypes.vtt, cacheControl: cacheControl.playlist[access] };
    if (!token) return { ...objectBody(object), ...vtt };
    const text = (object.data ?? (await readFile(object.path))).toString('utf8');
    const data = Buffer.from(rewriteStoryboardVtt(text, `?token=${encodeURIComponent(token)}`), 'utf8');
    return { ...vtt, data, size: data.length, etag: contentEtag(data) };
  }

  /**
   * A caption track's subtitles playlist, one of its WebVTT segments, or its whole file (captions.ts).
   * Short-lived like playlists: a track can be replaced or removed under the same names.
   */
  async function captionBody(video: PlayableVideo, resource: CaptionResource, access: 'public' | 'private', token: string | null): Promise<Body> {
    const track = video.captions.get(resource.language);
    if (!track) throw new DeliveryError(404, 'caption_not_found', `Video ${video.id} has no caption track for "${resource.language}".`);
    const file = await captionFiles.get(video, track, resource, token);
    return { ...file, size: file.data.length, cacheControl: cacheControl.playlist[access] };
  }

  // A download: one rendition as an MP4, or `audio.m4a`. Both pass the same token rules (in
  // `answer`) and go out with the same headers. Segments sent inside an MP4 download are logged as
  // segment rows like any others (one per segment whose first byte is sent), so analytics and
  // `served` count it as a view; audio.m4a is one stored object, not segments, and is not counted.
  // A download of a video still being made waits for its complete ladder, up to the segment wait's
  // deadline (then 503 with Retry-After): an MP4's length and ETag need every segment's size before
  // the first byte, and audio.m4a is made with the last segments. It raises nothing: the background
  // makes the rest in playback order, and a download must not go ahead of the viewers waiting for
  // one segment. A short video's ladder is complete seconds after `ready`.
  async function downloadBody(
    pendingOrReady: PlayableVideo,
    family: Family,
    resource: Extract<Resource, { type: 'download' | 'audio_download' }>,
    access: 'public' | 'private',
    res: ServerResponse,
  ): Promise<Body> {
    let video = pendingOrReady;
    if (video.segmentsPending) {
      const file = resource.type === 'audio_download' ? audioDownloadName : `the ${resource.quality} MP4`;
      const outcome = await deps.segmentWaits.untilComplete(video.id, closedSignal(res));
      if (outcome === 'timeout') throw downloadNotReady(video.id, file);
      const now = outcome === 'complete' ? await deps.catalog.fresh(video.id) : undefined;
      if (!now || now.segmentsPending) throw videoNotFound(video.id);
      video = now;
    }
    if (resource.type === 'audio_download') {
      if (!video.audioKey) throw new DeliveryError(404, 'audio_not_found', `Video ${video.id} has no sound, so no ${audioDownloadName}.`);
      const object = await storedObject(video, video.audioKey, 'stream');
      return {
        ...objectBody(object),
        contentType: audioDownloadContentType,
        cacheControl: cacheControl.media[access],
        contentDisposition: `attachment; filename="${video.id}-${audioDownloadName}"`,
      };
    }
    const { quality } = resource;
    const rendition = video.renditions.get(quality);
    if (!rendition) throw new DeliveryError(404, 'rendition_not_found', `Video ${video.id} has no ${quality} rendition.`);
    // H.264 only, which any player opens: `720p-av1.mp4` answers as an unknown rendition does.
    if (rendition.videoCodec !== 'h264') {
      throw new DeliveryError(404, 'rendition_not_found', `Downloads are H.264 renditions only; ${quality} of video ${video.id} is ${rendition.videoCodec}.`);
    }
    const layout = await deps.downloads.layout(video, rendition);
    return {
      contentType: hlsContentTypes.init,
      cacheControl: cacheControl.media[access],
      etag: layout.etag,
      size: layout.size,
      contentDisposition: `attachment; filename="${video.id}-${quality}.mp4"`,
      write: (start, end, res) =>
        writeMp4Range(deps.downloads, layout, start, end, res, (part, bytes) =>
          recordSegment(
            {
              orgId: video.orgId,
              envId: video.envId,
              videoId: video.id,
              renditionHeight: rendition.height,
              segmentIndex: part.segmentIndex!,
              bytes,
              access,
            },
            family,
          ),
        ),
    };
  }

  /**
   * An object of a ready video, from the cache; a missing one is logged (storage lost it) and 404.
   * `stream`: a miss answers with the bytes still arriving (`fill`), for bodies sent as they are.
   */
  async function storedObject(video: PlayableVideo, key: string, read: 'whole' | 'stream' = 'whole') {
    const object = await (read === 'stream' ? deps.cache.open(key) : deps.cache.get(key));
    if (!object) throw lostObject(video, key);
    return object;
  }

  /**
   * A master or rendition playlist. A video still being made has its playlists written again once
   * its ladder is complete (the measured segments): they are read from storage on every request
   * until then, never cached (object-cache.ts).
   */
  async function playlistObject(video: PlayableVideo, key: string): Promise<CachedObject | UncachedObject> {
    if (!video.segmentsPending) return storedObject(video, key);
    const object = await deps.cache.getUncached(key);
    if (!object) throw lostObject(video, key);
    return object;
  }

  function lostObject(video: PlayableVideo, key: string): DeliveryError {
    deps.logger.warn({ videoId: video.id, key }, 'a ready video is missing an object in storage');
    return new DeliveryError(404, 'not_found', `Video ${video.id} has no such file.`);
  }

  /**
   * A media or init segment storage does not have (the cache found none). A video whose segments
   * are still being made makes it now and the request waits for it (segment-waits.ts), then it is
   * served as any segment; any other ready video's was lost by storage.
   */
  async function madeOnRequest(video: PlayableVideo, resource: Resource, key: string, res: ServerResponse): Promise<CachedObject> {
    if (!video.segmentsPending || (resource.type !== 'segment' && resource.type !== 'init')) throw lostObject(video, key);
    const rendition = resource.quality!; // resolveResource resolved an init's rendition
    const what = resource.type === 'segment' ? `Segment ${resource.index} of ${rendition}` : `The init segment of ${rendition}`;
    // An init segment is stored by the run that makes its rendition's first segment.
    const segment = resource.type === 'segment' ? resource.index : 0;
    const outcome = await deps.segmentWaits.wait({ videoId: video.id, rendition, segment, key }, closedSignal(res));
    switch (outcome) {
      case 'stored': {
        const object = await deps.cache.open(key);
        if (!object) throw lostObject(video, key);
        return object;
      }
      case 'unplayable':
        throw videoNotFound(video.id);
      case 'timeout':
        throw segmentStillBeingMade(video.id, what);
      case 'complete':
        // The ladder's real segments can be fewer than the planned playlist listed.
        if (resource.type === 'segment') throw new DeliveryError(404, 'segment_not_found', `Rendition ${rendition} of video ${video.id} has no segment ${resource.index}.`);
        throw lostObject(video, key);
    }
  }

  async function playbackBody(
    video: PlayableVideo,
    route: Extract<DeliveryRoute, { kind: 'playback' }>,
    access: 'public' | 'private',
    token: string | null,
    res: ServerResponse,
  ): Promise<Body> {
    const resource = resolveResource(video, route.resource);
    const key = mediaKeyOf(video, resource);
    const isPlaylist = resource.type === 'master' || resource.type === 'rendition';
    if (isPlaylist) {
      const object = await playlistObject(video, key);
      const playlist = await rewrite(video, route.family, key, object, token, resource.type === 'master');
      const caching = resource.type === 'master' ? cacheControl.master : cacheControl.playlist;
      return { ...playlist, size: playlist.data.length, contentType: hlsContentTypes.playlist, cacheControl: caching[access] };
    }
    // A miss answers with the bytes still arriving (`fill`). One storage has not got yet takes
    // madeOnRequest, the only segment path that costs more than a lookup.
    const object = (await deps.cache.open(key)) ?? (await madeOnRequest(video, resource, key, res));
    // One object of one shape, not a spread and a property added after: this is the per-segment path.
    return {
      etag: object.etag,
      size: object.size,
      data: object.data,
      path: object.path,
      fill: object.fill,
      contentType: resource.type === 'init' ? hlsContentTypes.init : hlsContentTypes.segment,
      cacheControl: cacheControl.media[access],
      segment:
        resource.type === 'segment'
          ? {
              delivery: {
                orgId: video.orgId,
                envId: video.envId,
                videoId: video.id,
                renditionHeight: qualityHeight(resource.quality),
                segmentIndex: resource.index,
                bytes: 0,
                access,
              },
              family: route.family,
            }
          : undefined,
    };
  }

  async function rewrite(
    video: PlayableVideo,
    family: Family,
    key: string,
    object: CachedObject | UncachedObject,
    token: string | null,
    isMaster: boolean,
  ): Promise<{ data: Buffer; etag: string }> {
    // A master names the video's caption tracks, which change without the stored file changing.
    const tracks = isMaster ? [...video.captions.values()] : [];
    const tracksTag = tracks.map((t) => `${t.storageKey}:${t.isDefault ? 1 : 0}:${t.label}`).join(',');
    const memoKey = token ? undefined : `${family}|${object.etag}|${key}|${tracksTag}`;
    const memo = memoKey && rewritten.get(memoKey);
    if (memo) return memo;
    const text = (await bytesOf(object)).toString('utf8');
    const suffix = token ? `?token=${encodeURIComponent(token)}` : '';
    const out = addSubtitlesToMaster(
      rewritePlaylist(text, key, (target) => {
        const uri = familyUriOf(family, video.id, target);
        return uri && `${uri}${suffix}`;
      }),
      tracks,
      suffix,
    );
    const data = Buffer.from(out, 'utf8');
    const result = { data, etag: contentEtag(data) };
    if (memoKey) {
      if (rewritten.size >= maxRewrittenPlaylists) rewritten.clear();
      rewritten.set(memoKey, result);
    }
    return result;
  }

  // Timeouts, header size, connections: infra/src/http-server-limits.ts (docs/security.md).
  const server = createServer(httpServerOptions, (req, res) => {
    const started = performance.now();
    const route = { label: 'unmatched' };
    handle(req, res, route)
      .catch((error: unknown) => sendError(req, res, error))
      .finally(() => {
        const method = req.method === 'HEAD' ? 'HEAD' : req.method === 'GET' ? 'GET' : req.method === 'OPTIONS' ? 'OPTIONS' : 'other';
        counters.http.requests.inc({ route: route.label, method, status: res.statusCode });
        // Media segments are the hot path: counted, not timed (docs/metrics.md).
        if (!route.label.endsWith('/segment')) counters.http.seconds.observe({ route: route.label, method }, (performance.now() - started) / 1000);
      });
  });
  applyHttpServerLimits(server);
  // What Node's parser refuses (headers or URL over 16 KB, malformed requests) answers in the envelope too.
  server.on('clientError', answerClientError);

  function sendError(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const known = error instanceof DeliveryError;
    const failure = known
      ? error
      : error instanceof DatabaseUnavailableError
        ? databaseUnavailable()
        : error instanceof StorageUnavailableError
          ? storageUnavailable()
          : new DeliveryError(500, 'internal_error', 'The delivery node failed to answer; try again.');
    if (!known) logger.error({ err: error, url: req.url }, 'delivery request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJson(req, res, failure.status, failure.body(), failure.headers);
  }

  return server;
}

function resolveResource(video: PlayableVideo, resource: Resource): Resource {
  if (resource.type === 'master' || resource.type === 'storyboard' || resource.type === 'storyboard_sheet' || resource.type === 'audio_download' || isCaptionResource(resource)) return resource;
  const quality = resource.quality ?? video.renditions.keys().next().value;
  const rendition = quality ? video.renditions.get(quality) : undefined;
  if (!rendition) throw new DeliveryError(404, 'rendition_not_found', `Video ${video.id} has no ${resource.quality ?? ''} rendition.`);
  if (resource.type === 'segment' && rendition.segmentCount > 0 && resource.index >= rendition.segmentCount) {
    throw new DeliveryError(404, 'segment_not_found', `Rendition ${quality} of video ${video.id} has ${rendition.segmentCount} segments.`);
  }
  return resource.type === 'init' ? { type: 'init', quality: rendition.key } : resource;
}

/** Aborted when the client closes the connection before the answer (the reason: clientClosedRequest). */
function closedSignal(res: ServerResponse): AbortSignal {
  const closed = new AbortController();
  if (res.closed) closed.abort(clientClosedRequest());
  else res.once('close', () => closed.abort(clientClosedRequest()));
  return closed.signal;
}

function objectBody(object: CachedObject): Pick<Body, 'etag' | 'size' | 'data' | 'path' | 'fill'> {
  return { etag: object.etag, size: object.size, data: object.data, path: object.path, fill: object.fill };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** The route's label in the request metrics: the path family and resource, or the kind of path. */
function routeLabel(route: DeliveryRoute): string {
  switch (route.kind) {
    case 'playback':
      return `${route.family}/${route.resource.type}`;
    case 'share':
      return `share/${route.resource.type}`;
    default:
      return route.kind;
  }
}

// The headers of a 200 or 206 answer that depend only on its type and cache policy, as writeHead's
// flat list, made once per pair (a handful: both come from the constants above) rather than spread
// into a new object three times a request on the segment path.
const constantHeaders = new Map<string, readonly string[]>();
function constantHeadersOf(contentType: string, cacheControl: string): readonly string[] {
  const key = `${contentType}\n${cacheControl}`;
  let headers = constantHeaders.get(key);
  if (!headers) {
    headers = [...Object.entries(corsHeaders).flat(), 'Cache-Control', cacheControl, 'Content-Type', contentType, 'Accept-Ranges', 'bytes'];
    constantHeaders.set(key, headers);
  }
  return headers;
}

/** Conditional requests, ranges, HEAD, and the segment log row, for any body. */
async function sendBody(
  recordSegment: (delivery: SegmentDelivery, family: Family) => Promise<void>,
  req: IncomingMessage,
  res: ServerResponse,
  body: Body,
  /** A page that explains an error (the embed page's 404) is sent whole with this status. */
  errorStatus?: number,
): Promise<void> {
  const ifNoneMatch = errorStatus ? undefined : req.headers['if-none-match'];
  if (ifNoneMatch && etagMatches(ifNoneMatch, body.etag)) {
    res.writeHead(304, { ...corsHeaders, 'Cache-Control': body.cacheControl, ETag: body.etag });
    res.end();
    return;
  }
  const ifRange = req.headers['if-range'];
  const range = errorStatus || (ifRange && ifRange !== body.etag) ? { type: 'full' as const } : parseRange(req.headers.range, body.size);
  if (range.type === 'unsatisfiable') {
    res.writeHead(416, { ...corsHeaders, 'Content-Range': `bytes */${body.size}`, 'Cache-Control': 'no-store', 'Content-Length': '0' });
    res.end();
    return;
  }
  const start = range.type === 'partial' ? range.start : 0;
  const end = range.type === 'partial' ? range.end : body.size - 1;
  const length = body.size === 0 ? 0 : end - start + 1;
  const headers = [...constantHeadersOf(body.contentType, body.cacheControl), 'ETag', body.etag, 'Content-Length', String(length)];
  if (body.contentDisposition) headers.push('Content-Disposition', body.contentDisposition);
  if (body.contentSecurityPolicy) headers.push('Content-Security-Policy', body.contentSecurityPolicy);
  if (range.type === 'partial') headers.push('Content-Range', `bytes ${start}-${end}/${body.size}`);
  const status = errorStatus ?? (range.type === 'partial' ? 206 : 200);
  if (req.method === 'HEAD') {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  // A miss still arriving: nothing is sent (nor logged) before its first byte asked for is here, so a
  // GET failing before then is a 503 in the envelope rather than headers and no body.
  if (body.fill && length > 0) {
    await body.fill.arrived(start).catch((error: unknown) => {
      throw new StorageUnavailableError(error);
    });
  }
  // A segment counts once per fetch: whole, or the range that starts it (not resumptions).
  if (body.segment && start === 0) {
    body.segment.delivery.bytes = length;
    await recordSegment(body.segment.delivery, body.segment.family);
  }
  res.writeHead(status, headers);
  if (body.write) {
    await body.write(start, end, res);
    return;
  }
  if (body.fill && length > 0) {
    await writeFill(body.fill, start, end, res);
    return;
  }
  if (body.data) {
    memoryBodies.end(res, range.type === 'partial' ? body.data.subarray(start, end + 1) : body.data);
    return;
  }
  if (length === 0 || !body.path) {
    res.end();
    return;
  }
  // Large reads, as nginx's `output_buffers 1m` advises for big static files: a 2 MB segment is a few
  // socket writes rather than 32 of the default 64 KiB.
  const stream = createReadStream(body.path, { start, end, highWaterMark: diskReadBytes });
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

/** An HTML page (player-page.ts) as a body, with the pages' Content-Security-Policy. */
function pageBody(data: Buffer): Omit<Body, 'cacheControl'> {
  return { data, etag: contentEtag(data), size: data.length, contentType: 'text/html; charset=utf-8', contentSecurityPolicy: playerPageCsp };
}

/** This host's origin as the client reached it (a proxy in front says its scheme in X-Forwarded-Proto). */
function originOf(req: IncomingMessage): string {
  const proto = header(req, 'x-forwarded-proto') === 'https' ? 'https' : 'http';
  return `${proto}://${header(req, 'host') ?? 'localhost'}`;
}

/** The oEmbed URL of one of this host's pages (the pages' discovery link). */
function oembedUrl(origin: string, pageUrl: string): string {
  return `${origin}${embedPaths.oembed}?url=${encodeURIComponent(pageUrl)}&format=json`;
}

function sendJson(req: IncomingMessage, res: ServerResponse, status: number, value: unknown, extra: OutgoingHttpHeaders = {}): void {
  const data = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
  res.writeHead(status, {
    ...corsHeaders,
    ...extra,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': String(data.length),
  });
  res.end(req.method === 'HEAD' ? undefined : data);
}
