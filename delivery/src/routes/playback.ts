// The playback route: a file of a video on one of the families' paths (public, private, direct;
// paths.ts). Which body a file is made of follows from its resource type alone (`fileBodies`): the
// HLS playlists and segments here, downloads, storyboards and captions in their own files.
import {
  addAudioToMaster,
  addSubtitlesToMaster,
  audioGroupRates,
  hlsContentTypes,
  objectKeys,
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
    const object = stored ?? (await playlistObject(deps, video, key));
    const playlist = await rewrite(
      deps,
      file,
      stored ? bootstrapKey! : key,
      object,
      resource.type === 'master',
      bootstrap,
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
  // madeOnRequest, the only segment path that costs more than a lookup.
  const object = (await deps.cache.open(key)) ?? (await madeOnRequest(deps, file, resource, key));
  // One object of one shape, not a spread and a property added after: this is the per-segment path.
  return {
    etag: object.etag,
    size: object.size,
    data: object.data,
    path: object.path,
    fill: object.fill,
    contentType: resource.type === 'init' ? hlsContentTypes.init : hlsContentTypes.segment,
    cacheControl: cacheControl.media[access],
    // A segment's row in the segment log: the 6 s segment, or the first of its bootstrap parts
    // (issue 55). A bootstrap player asks for segment 0 as three parts, and analytics count 6 s
    // segments (views are segments over duration / 6): its first part stands for the segment, the
    // other two write no row (docs/decisions/just-in-time.md#bootstrap-segments).
    segment:
      resource.type === 'segment' && !resource.part
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
  const memoKey = token ? undefined : `${family}|${object.etag}|${key}|${tracksTag}|${carried ? 'b' : ''}`;
  const memo = memoKey && rewritten.get(memoKey);
  if (memo) return memo;
  const text = withAddedAudio(video, (await bytesOf(object)).toString('utf8'), audio);
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
