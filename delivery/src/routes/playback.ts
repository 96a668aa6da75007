// The playback route: a file of a video on one of the families' paths (public, private, direct;
// paths.ts). Which body a file is made of follows from its resource type alone (`fileBodies`): the
// HLS playlists and segments here, downloads, storyboards and captions in their own files.
import {
  addAudioToMaster,
  addSubtitlesToMaster,
  answersReload,
  audioGroupRates,
  awaitsNextPart,
  deltaLivePlaylist,
  hlsContentTypes,
  hlsLivePartSeconds,
  listsPart,
  objectKeys,
  readLivePlaylistPosition,
  reloadTooFarAhead,
  type BlockingReload,
} from '@kino/proto/contract';
import { isCaptionResource } from '../captions.ts';
import { DeliveryError, segmentStillBeingMade, videoNotFound } from '../errors.ts';
import { bytesOf, contentEtag, type CachedObject, type UncachedObject } from '../object-cache.ts';
import { familyUriOf, mediaKeyOf, qualityHeight, type Resource } from '../paths.ts';
import { rewritePlaylist } from '../playlist.ts';
import { cacheControl, sendBody, type Body } from '../responses.ts';
import type { PlayableVideo } from '../video-catalog.ts';
import { captionBody } from './captions.ts';
import {
  closedSignal,
  lostObject,
  openVideo,
  storedObject,
  type FileRequest,
  type RouteDeps,
  type RouteHandler,
} from './context.ts';
import { animatedBody } from './animated.ts';
import { downloadBody } from './downloads.ts';
import { storyboardBody } from './storyboards.ts';

const maxRewrittenPlaylists = 5_000;

type FileBodies = {
  [T in Resource['type']]: (deps: RouteDeps, file: FileRequest<Extract<Resource, { type: T }>>) => Promise<Body>;
};

/** The body of each type of file a family serves. */
export const fileBodies: FileBodies = {
  master: hlsBody,
  rendition: hlsBody,
  init: hlsBody,
  segment: hlsBody,
  live_part: hlsBody,
  download: downloadBody,
  audio_download: downloadBody,
  storyboard: storyboardBody,
  storyboard_sheet: storyboardBody,
  subtitles_playlist: captionBody,
  subtitles_segment: captionBody,
  captions_file: captionBody,
  animated: animatedBody,
};

export const servePlayback: RouteHandler<'playback'> = async (deps, { req, res, params }, route) => {
  const { video, access, token } = await openVideo(deps, req, params, route);
  const { resource } = route;
  // The table is keyed by the resource's own type, so the maker it gives takes this resource.
  const makeBody = fileBodies[resource.type] as (deps: RouteDeps, file: FileRequest) => Promise<Body>;
  await sendBody(
    deps.recordSegment,
    req,
    res,
    await makeBody(deps, { video, family: route.family, resource, access, token, res, params }),
  );
};

/** An init segment's rendition resolved (`video/init.m4s`: the lowest), and a rendition or segment the video does not have refused. */
export function resolveResource(video: Pick<PlayableVideo, 'id' | 'renditions'>, resource: Resource): Resource {
  if (
    resource.type === 'master' ||
    resource.type === 'storyboard' ||
    resource.type === 'storyboard_sheet' ||
    resource.type === 'audio_download' ||
    resource.type === 'animated' ||
    isCaptionResource(resource)
  )
    return resource;
  const quality = resource.quality ?? video.renditions.keys().next().value;
  const rendition = quality ? video.renditions.get(quality) : undefined;
  if (!rendition)
    throw new DeliveryError(
      404,
      'rendition_not_found',
      `Video ${video.id} has no ${resource.quality ?? ''} rendition.`,
    );
  if (resource.type === 'segment' && rendition.segmentCount > 0 && resource.index >= rendition.segmentCount) {
    throw new DeliveryError(
      404,
      'segment_not_found',
      `Rendition ${quality} of video ${video.id} has ${rendition.segmentCount} segments.`,
    );
  }
  return resource.type === 'init' ? { type: 'init', quality: rendition.key } : resource;
}

/** A master or rendition playlist (rewritten for the family and token), an init segment or a media segment. */
export async function hlsBody(deps: RouteDeps, file: FileRequest): Promise<Body> {
  const { video, access } = file;
  const resource = resolveResource(video, file.resource);
  const key = mediaKeyOf(video, resource);
  const isPlaylist = resource.type === 'master' || resource.type === 'rendition';
  if (isPlaylist) {
    const bootstrap = wantsBootstrap(file.params);
    const bootstrapKey =
      bootstrap && resource.type === 'rendition' ? objectKeys.bootstrapPlaylist(video.id, resource.quality) : undefined;
    // A rendition's bootstrap playlist where its video has one (its first segment made as bootstrap
    // segments); else the playlist, as without the parameter.
    const stored =
      bootstrapKey && !video.clipMedia ? await bootstrapPlaylistObject(deps, video, bootstrapKey) : undefined;
    const live = !stored && video.live && resource.type === 'rendition';
    const object =
      stored ?? (live ? await livePlaylistObject(deps, file, key) : await playlistObject(deps, video, key));
    const playlist = await rewrite(
      deps,
      file,
      stored ? bootstrapKey! : key,
      object,
      resource.type === 'master',
      bootstrap,
      live && wantsDelta(file.params),
    );
    const caching =
      resource.type === 'master' ? cacheControl.master : video.live ? cacheControl.livePlaylist : cacheControl.playlist;
    return {
      ...playlist,
      size: playlist.data.length,
      contentType: hlsContentTypes.playlist,
      cacheControl: caching[access],
    };
  }
  // A miss answers with the bytes still arriving (`fill`). One storage has not got yet takes
  // madeOnRequest (or, a broadcast's part, waits for it), the only segment paths that cost more than a lookup.
  const object =
    (await deps.cache.open(key)) ??
    (resource.type === 'live_part'
      ? await livePartWhenStored(deps, file, resource, key)
      : await madeOnRequest(deps, file, resource, key));
  const counted =
    resource.type === 'segment'
      ? resource.part === undefined || resource.part === 0
        ? { quality: resource.quality, index: resource.index }
        : undefined
      : resource.type === 'live_part'
        ? await segmentOpenedByPart(deps, file, resource, key)
        : undefined;
  // One object of one shape, not a spread and a property added after: this is the per-segment path.
  return {
    etag: object.etag,
    size: object.size,
    data: object.data,
    path: object.path,
    fill: object.fill,
    contentType: resource.type === 'init' ? hlsContentTypes.init : hlsContentTypes.segment,
    cacheControl: cacheControl.media[access],
    // A segment's row in the segment log: the 6 s segment, or the first of its parts: a bootstrap
    // player asks for segment 0 as three parts (issue 55), a low-latency one for a live segment as
    // 1 s parts (issue 56), and analytics count 6 s segments (views are segments over duration / 6):
    // its first part stands for the segment, the others write no row
    // (docs/decisions/just-in-time.md#bootstrap-segments, docs/analytics.md).
    segment: counted
      ? {
          delivery: {
            orgId: video.orgId,
            envId: video.envId,
            videoId: video.id,
            renditionHeight: qualityHeight(counted.quality),
            segmentIndex: counted.index,
            bytes: 0,
            access,
          },
          family: file.family,
        }
      : undefined,
  };
}

/** A playlist with its URIs in the family's names (and the token on each), and a master with the video's caption tracks. */
async function rewrite(
  deps: Pick<RouteDeps, 'rewrittenPlaylists'>,
  { video, family, token }: FileRequest,
  key: string,
  object: CachedObject | UncachedObject,
  isMaster: boolean,
  /** `bootstrap=true` was asked for: a master carries it onto the URIs it names, as it carries the token. */
  bootstrap = false,
  /** `_HLS_skip` on a live playlist: its delta update (deltaLivePlaylist). */
  delta = false,
): Promise<{ data: Buffer; etag: string }> {
  const rewritten = deps.rewrittenPlaylists;
  // A master names the video's caption tracks and added audio tracks, which change without the stored file changing.
  const tracks = isMaster ? [...video.captions.values()] : [];
  const audio = isMaster ? video.addedAudio : [];
  const tracksTag = [
    ...tracks.map((t) => `${t.storageKey}:${t.isDefault ? 1 : 0}:${t.label}`),
    ...audio.map((a) => `${a.key}:${a.isDefault ? 1 : 0}:${a.name}`),
  ].join(',');
  const carried = isMaster && bootstrap;
  const memoKey = token
    ? undefined
    : `${family}|${object.etag}|${key}|${tracksTag}|${carried ? 'b' : ''}|${delta ? 'd' : ''}`;
  const memo = memoKey && rewritten.get(memoKey);
  if (memo) return memo;
  const stored = (await bytesOf(object)).toString('utf8');
  const text = withAddedAudio(video, delta ? deltaLivePlaylist(stored) : stored, audio);
  const query = [...(token ? [`token=${encodeURIComponent(token)}`] : []), ...(carried ? ['bootstrap=true'] : [])];
  const suffix = query.length > 0 ? `?${query.join('&')}` : '';
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

/**
 * A stored master with the tracks added to the video (addAudioToMaster), the variants' rates raised
 * by what those measure above the renditions the stored group names.
 */
export function withAddedAudio(
  video: Pick<PlayableVideo, 'renditions'>,
  master: string,
  added: PlayableVideo['addedAudio'],
): string {
  if (added.length === 0) return master;
  const listed = [...master.matchAll(/^#EXT-X-MEDIA:TYPE=AUDIO,.*URI="([^"/]+)\//gm)].flatMap(([, key]) => {
    const rendition = video.renditions.get(key!);
    return rendition ? [rendition] : [];
  });
  return addAudioToMaster(master, added, audioGroupRates(listed));
}

/** Whether the query asks for a delta update (`_HLS_skip=YES` or `v2`; validated by then: the booleans are taken too). */
function wantsDelta(params: URLSearchParams): boolean {
  const value = params.get('_HLS_skip');
  return value === 'YES' || value === 'v2' || ['true', '1', 'yes'].includes(value?.toLowerCase() ?? '');
}

/** The blocking reload a query asks for (`_HLS_msn`, with `_HLS_part`), if any. */
function blockingReloadOf(params: URLSearchParams): BlockingReload | undefined {
  const msn = params.get('_HLS_msn');
  if (msn === null) return undefined;
  const part = params.get('_HLS_part');
  return { msn: Number(msn), ...(part === null ? {} : { part: Number(part) }) };
}

/**
 * A broadcast's media playlist, read from storage on every request. A blocking reload
 * (`_HLS_msn`/`_HLS_part`, RFC 8216bis 6.2.5.2) of a low-latency one (its server control says
 * CAN-BLOCK-RELOAD) is held until the playlist holds that segment or part, and answered as the
 * playlist is after three target durations; one asking past the segment after the one being made,
 * or a part more than three ahead, is 400 at once. A standard broadcast's is answered at once.
 */
async function livePlaylistObject(
  deps: Pick<RouteDeps, 'cache' | 'logger' | 'livePlaylists'>,
  { video, params, res }: FileRequest,
  key: string,
): Promise<CachedObject | UncachedObject> {
  const object = await playlistObject(deps, video, key);
  const reload = blockingReloadOf(params);
  if (!reload) return object;
  const position = readLivePlaylistPosition((await bytesOf(object)).toString('utf8'));
  if (position.canSkipUntil === undefined || answersReload(position, reload)) return object;
  if (reloadTooFarAhead(position, reload))
    throw new DeliveryError(
      400,
      'blocking_reload_too_far_ahead',
      `The playlist has ${position.segments} segments and ${position.openParts} parts of the next; ` +
        `segment ${reload.msn}${reload.part === undefined ? '' : ` part ${reload.part}`} is too far ahead to wait for.`,
    );
  const waited = await deps.livePlaylists.wait(
    key,
    (text) => answersReload(readLivePlaylistPosition(text), reload),
    position.targetDuration * 3 * 1000,
    closedSignal(res),
  );
  return waited.object ?? object;
}

/**
 * A broadcast's part not stored yet: a player asks for the part its playlist's preload hint names
 * before it exists. The request is held until the rendition's playlist lists it (or hints no next
 * part: the input has ended, `awaitsNextPart`), three part targets at most, then served; not listed
 * by then, 404.
 */
async function livePartWhenStored(
  deps: Pick<RouteDeps, 'cache' | 'logger' | 'livePlaylists'>,
  { video, res }: FileRequest,
  resource: Extract<Resource, { type: 'live_part' }>,
  key: string,
): Promise<CachedObject> {
  const name = key.slice(key.lastIndexOf('/') + 1);
  if (video.live) {
    const waited = await deps.livePlaylists.wait(
      objectKeys.renditionPlaylist(video.id, resource.quality),
      (text) => listsPart(text, name) || !awaitsNextPart(text),
      3 * 1000 * hlsLivePartSeconds,
      closedSignal(res),
    );
    const object = waited.satisfied ? await deps.cache.open(key) : undefined;
    if (object) return object;
  }
  throw new DeliveryError(404, 'part_not_found', `Rendition ${resource.quality} of video ${video.id} has no ${name}.`);
}

/**
 * The segment a broadcast's part opens, if it is its segment's first part (read from its rendition's
 * playlist, findLivePart): the part a low-latency player's fetch of that segment counts by. A part
 * is stored just before the playlist naming it, so one served in between waits for that playlist
 * (three part targets at most; not listed by then, or the broadcast over, it counts nothing).
 */
async function segmentOpenedByPart(
  deps: Pick<RouteDeps, 'livePlaylists'>,
  { video, res }: FileRequest,
  resource: Extract<Resource, { type: 'live_part' }>,
  key: string,
): Promise<{ quality: string; index: number } | undefined> {
  if (!video.live) return undefined;
  const place = await deps.livePlaylists.placeOfPart(
    objectKeys.renditionPlaylist(video.id, resource.quality),
    key.slice(key.lastIndexOf('/') + 1),
    3 * 1000 * hlsLivePartSeconds,
    closedSignal(res),
  );
  return place?.first ? { quality: resource.quality, index: place.segment } : undefined;
}

/** Whether the query asks for bootstrap segments (validated by then: one of the booleans playback-params.ts takes). */
function wantsBootstrap(params: URLSearchParams): boolean {
  const value = params.get('bootstrap')?.toLowerCase();
  return value === 'true' || value === '1' || value === 'yes';
}

/**
 * A rendition's bootstrap playlist, or undefined where its video has none (made before bootstrap
 * segments, or not just in time). Read as the playlist is: uncached while the video is being made.
 */
async function bootstrapPlaylistObject(
  deps: Pick<RouteDeps, 'cache'>,
  video: PlayableVideo,
  key: string,
): Promise<CachedObject | UncachedObject | undefined> {
  return video.segmentsPending ? deps.cache.getUncached(key) : deps.cache.get(key);
}

/**
 * A master or rendition playlist. A video still being made has its playlists written again once
 * its ladder is complete (the measured segments), and a broadcast's grow while it runs: they are
 * read from storage on every request until then, never cached (object-cache.ts).
 */
async function playlistObject(
  deps: Pick<RouteDeps, 'cache' | 'logger'>,
  video: PlayableVideo,
  key: string,
): Promise<CachedObject | UncachedObject> {
  if (!video.segmentsPending && !video.live) return storedObject(deps, video, key);
  const object = await deps.cache.getUncached(key);
  if (!object) throw lostObject(deps, video, key);
  return object;
}

/**
 * A media or init segment storage does not have (the cache found none). A video whose segments
 * are still being made makes it now and the request waits for it (segment-waits.ts), then it is
 * served as any segment; any other ready video's was lost by storage.
 */
async function madeOnRequest(
  deps: Pick<RouteDeps, 'cache' | 'logger' | 'segmentWaits'>,
  { video, res }: FileRequest,
  resource: Resource,
  key: string,
): Promise<CachedObject> {
  if (!video.segmentsPending || (resource.type !== 'segment' && resource.type !== 'init'))
    throw lostObject(deps, video, key);
  const rendition = resource.quality!; // resolveResource resolved an init's rendition
  const what =
    resource.type === 'segment' ? `Segment ${resource.index} of ${rendition}` : `The init segment of ${rendition}`;
  // An init segment is stored by the run that makes its rendition's first segment.
  const segment = resource.type === 'segment' ? resource.index : 0;
  const outcome = await deps.segmentWaits.wait({ videoId: video.id, rendition, segment, key }, closedSignal(res));
  switch (outcome) {
    case 'stored': {
      const object = await deps.cache.open(key);
      if (!object) throw lostObject(deps, video, key);
      return object;
    }
    case 'unplayable':
      throw videoNotFound(video.id);
    case 'timeout':
      throw segmentStillBeingMade(video.id, what);
    case 'complete':
      // The ladder's real segments can be fewer than the planned playlist listed.
      if (resource.type === 'segment')
        throw new DeliveryError(
          404,
          'segment_not_found',
          `Rendition ${rendition} of video ${video.id} has no segment ${resource.index}.`,
        );
      throw lostObject(deps, video, key);
  }
}
