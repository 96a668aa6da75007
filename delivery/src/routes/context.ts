// What every route handler is given, and the few things they share. A handler takes its
// dependencies as a `RouteDeps` object (made once per server by createDeliveryServer, or by a test
// from fakes) and the request as an `Exchange`; each helper asks only for the deps it uses
// (`Pick<RouteDeps, ...>`), so it can be tested alone.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { embedPaths } from '@kino/proto/contract';
import { isLiveStreamId } from '@kino/database/repositories';
import type { Logger } from '@kino/infra';
import type { BeaconLimiter } from '../beacons.ts';
import type { CaptionFiles } from '../captions.ts';
import { clientClosedRequest, DeliveryError, videoNotFound } from '../errors.ts';
import type { LivePlaylistWaits } from '../live-playlist-waits.ts';
import type { Mp4Downloads } from '../mp4-download.ts';
import type { ObjectCache } from '../object-cache.ts';
import type { PlaybackTokenVerifier } from '../playback-auth.ts';
import type { PlaybackEventLog } from '../playback-event-log.ts';
import { validatePlaybackParams } from '../playback-params.ts';
import type { DeliveryRoute, Family, Resource } from '../paths.ts';
import type { Access, RecordSegment } from '../responses.ts';
import type { SegmentWaits } from '../segment-waits.ts';
import type { ShareLinkGate } from '../share-links.ts';
import type { ThumbnailMaker } from '../thumbnails.ts';
import type { PlayableVideo, VideoCatalog } from '../video-catalog.ts';

export interface RouteDeps {
  catalog: Pick<VideoCatalog, 'get' | 'fresh'>;
  cache: Pick<ObjectCache, 'get' | 'open' | 'getUncached'>;
  tokens: Pick<PlaybackTokenVerifier, 'authorize'>;
  thumbnails: Pick<ThumbnailMaker, 'get' | 'at' | 'animated' | 'sourceOf'>;
  shareLinks: Pick<ShareLinkGate, 'open'>;
  downloads: Mp4Downloads;
  /** Segments of a video still being made, made on request (segment-waits.ts). */
  segmentWaits: Pick<SegmentWaits, 'wait' | 'untilComplete'>;
  /** Blocking reloads of broadcasts' playlists, and parts waited for (live-playlist-waits.ts). */
  livePlaylists: Pick<LivePlaylistWaits, 'wait' | 'placeOfPart'>;
  logger: Logger;
  /** Caption files made from a track's stored file (captions.ts); one per server, it keeps their cut segments. */
  captionFiles: Pick<CaptionFiles, 'get'>;
  /** Rewritten playlists that carry no token, the same for every viewer: made once (playback.ts). */
  rewrittenPlaylists: Map<string, { data: Buffer; etag: string }>;
  /**
   * Where accepted beacon events go, the per-address limit of beacon requests (routes/beacons.ts),
   * and the viewer's address it is counted by (client-address.ts).
   */
  beacons: {
    log: Pick<PlaybackEventLog, 'record'>;
    limiter: Pick<BeaconLimiter, 'take'>;
    clientAddress: (req: IncomingMessage) => string;
  };
  /** The segment log's row and the metrics' counters of a segment served (sendBody calls it). */
  recordSegment: RecordSegment;
}

/** One request and its response, and the request's query. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  params: URLSearchParams;
}

export type RouteOf<K extends DeliveryRoute['kind']> = Extract<DeliveryRoute, { kind: K }>;

/** Answers one kind of route: writes the response (sendBody or sendJson) or throws a DeliveryError. */
export type RouteHandler<K extends DeliveryRoute['kind']> = (
  deps: RouteDeps,
  exchange: Exchange,
  route: RouteOf<K>,
) => Promise<void>;

/**
 * A file of a video asked for on one of the families' paths, once the request was let in: the
 * video, its family, the resource, and what opened it (`token`: put on the URIs of what it names).
 */
export interface FileRequest<R extends Resource = Resource> {
  video: PlayableVideo;
  family: Family;
  resource: R;
  access: Access;
  token: string | null;
  /** A wait for a file still being made ends when its client goes (closedSignal). */
  res: ServerResponse;
  /** The request's query (an animated preview's stretch, size and rate). */
  params: URLSearchParams;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Where the request comes from, as a playback token's origin rules read it (playback-auth.ts). */
export function viewerOf(req: IncomingMessage): { origin: string | undefined; referer: string | undefined } {
  return { origin: header(req, 'origin'), referer: header(req, 'referer') };
}

/** This host's origin as the client reached it (a proxy in front says its scheme in X-Forwarded-Proto). */
export function originOf(req: IncomingMessage): string {
  const proto = header(req, 'x-forwarded-proto') === 'https' ? 'https' : 'http';
  return `${proto}://${header(req, 'host') ?? 'localhost'}`;
}

/** The oEmbed URL of one of this host's pages (the pages' discovery link). */
export function oembedUrl(origin: string, pageUrl: string): string {
  return `${origin}${embedPaths.oembed}?url=${encodeURIComponent(pageUrl)}&format=json`;
}

/** Aborted when the client closes the connection before the answer (the reason: clientClosedRequest). */
export function closedSignal(res: ServerResponse): AbortSignal {
  const closed = new AbortController();
  if (res.closed) closed.abort(clientClosedRequest());
  else res.once('close', () => closed.abort(clientClosedRequest()));
  return closed.signal;
}

/**
 * The query of a path that serves a video's files (playback-params.ts), refused whole when a
 * parameter is unknown or a value invalid. routes/table.ts checks it for every such route, first.
 */
export function checkPlaybackParams(params: URLSearchParams, routeParams: readonly string[] = []): void {
  const paramErrors = validatePlaybackParams(params, routeParams);
  if (paramErrors.length > 0) {
    throw new DeliveryError(
      400,
      'invalid_playback_parameters',
      'A playback query parameter is unknown or has an invalid value.',
      paramErrors,
    );
  }
}

/**
 * The video a playback or thumbnail path names, once the request may have it: a public path's org
 * and env must be the video's; private paths always need a token, and a private video needs one on
 * every path (a thumbnail's token is checked for images).
 */
/**
 * The video a request for `resource` reads: the catalog's entry, or, for the files that list its
 * caption tracks (the master, a subtitles playlist, a whole captions file), the video as the
 * database has it now. A track added or removed through the API is in the next master a player
 * loads, on every node, not a catalog lifetime later; and the entry those reads replace is current
 * for the subtitles segments that follow. A master is loaded once a playback: the read costs little.
 */
export function currentVideo(
  deps: Pick<RouteDeps, 'catalog'>,
  videoId: string,
  resource: Resource | undefined,
): Promise<PlayableVideo | undefined> {
  const listsTracks =
    resource?.type === 'master' || resource?.type === 'subtitles_playlist' || resource?.type === 'captions_file';
  return listsTracks ? deps.catalog.fresh(videoId) : deps.catalog.get(videoId);
}

export async function openVideo(
  deps: Pick<RouteDeps, 'catalog' | 'tokens'>,
  req: IncomingMessage,
  params: URLSearchParams,
  route: RouteOf<'playback' | 'thumbnail'>,
): Promise<{ video: PlayableVideo; access: Access; token: string | null }> {
  const video = await currentVideo(deps, route.videoId, route.kind === 'playback' ? route.resource : undefined);
  if (!video) throw videoNotFound(route.videoId);
  if (
    route.kind === 'playback' &&
    route.family === 'public' &&
    (route.orgId !== video.orgId || route.envId !== video.envId)
  ) {
    throw videoNotFound(route.videoId);
  }
  const needsToken = (route.kind === 'playback' && route.family === 'private') || !video.allowPublicAccess;
  const token = needsToken ? params.get('token') : null;
  // A live stream's path is opened by a token for the stream (`POST .../playback-url` signs those):
  // it plays whichever broadcast the stream has now, so its token names the stream, not a video.
  const subject = isLiveStreamId(route.videoId) ? route.videoId : video.id;
  if (needsToken)
    await deps.tokens.authorize(token, subject, viewerOf(req), route.kind === 'thumbnail' ? 'image' : 'playback');
  return { video, access: needsToken ? 'private' : 'public', token };
}

/**
 * An object of a ready video, from the cache; a missing one is logged (storage lost it) and 404.
 * `stream`: a miss answers with the bytes still arriving (`fill`), for bodies sent as they are.
 */
export async function storedObject(
  deps: Pick<RouteDeps, 'cache' | 'logger'>,
  video: PlayableVideo,
  key: string,
  read: 'whole' | 'stream' = 'whole',
) {
  const object = await (read === 'stream' ? deps.cache.open(key) : deps.cache.get(key));
  if (!object) throw lostObject(deps, video, key);
  return object;
}

export function lostObject(deps: Pick<RouteDeps, 'logger'>, video: PlayableVideo, key: string): DeliveryError {
  deps.logger.warn({ videoId: video.id, key }, 'a ready video is missing an object in storage');
  return new DeliveryError(404, 'not_found', `Video ${video.id} has no such file.`);
}
