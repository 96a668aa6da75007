// Downloads: one rendition as an MP4, or `audio.m4a`. Both pass the same token rules (openVideo)
// and go out with the same headers. Segments sent inside an MP4 download are logged as segment rows
// like any others (one per segment whose first byte is sent), so analytics and `served` count it as
// a view; audio.m4a is one stored object, not segments, and is not counted.
// A download of a video still being made waits for its complete ladder, up to the segment wait's
// deadline (then 503 with Retry-After): an MP4's length and ETag need every segment's size before
// the first byte, and audio.m4a is made with the last segments. It raises nothing: the background
// makes the rest in playback order, and a download must not go ahead of the viewers waiting for
// one segment. A short video's ladder is complete seconds after `ready`.
import { audioDownloadContentType, audioDownloadName, hlsContentTypes } from '@kino/proto/contract';
import { DeliveryError, downloadNotReady, videoNotFound } from '../errors.ts';
import { writeMp4Range } from '../mp4-download.ts';
import type { Resource } from '../paths.ts';
import { cacheControl, objectBody, type Body } from '../responses.ts';
import type { PlayableVideo } from '../video-catalog.ts';
import { closedSignal, storedObject, type FileRequest, type RouteDeps } from './context.ts';

type DownloadResource = Extract<Resource, { type: 'download' | 'audio_download' }>;

export async function downloadBody(
  deps: Pick<RouteDeps, 'catalog' | 'cache' | 'logger' | 'segmentWaits' | 'downloads' | 'recordSegment'>,
  file: FileRequest<DownloadResource>,
): Promise<Body> {
  const { resource, access, family } = file;
  const video = await completeVideo(deps, file);
  if (resource.type === 'audio_download') {
    if (!video.audioKey)
      throw new DeliveryError(404, 'audio_not_found', `Video ${video.id} has no sound, so no ${audioDownloadName}.`);
    const object = await storedObject(deps, video, video.audioKey, 'stream');
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
    throw new DeliveryError(
      404,
      'rendition_not_found',
      `Downloads are H.264 renditions only; ${quality} of video ${video.id} is ${rendition.videoCodec}.`,
    );
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
        deps.recordSegment(
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

/** The video once its ladder is complete: at once for a ready one, after a wait for one still being made. */
async function completeVideo(
  deps: Pick<RouteDeps, 'catalog' | 'segmentWaits'>,
  { video, resource, res }: FileRequest<DownloadResource>,
): Promise<PlayableVideo> {
  if (!video.segmentsPending) return video;
  const file = resource.type === 'audio_download' ? audioDownloadName : `the ${resource.quality} MP4`;
  const outcome = await deps.segmentWaits.untilComplete(video.id, closedSignal(res));
  if (outcome === 'timeout') throw downloadNotReady(video.id, file);
  const now = outcome === 'complete' ? await deps.catalog.fresh(video.id) : undefined;
  if (!now || now.segmentsPending) throw videoNotFound(video.id);
  return now;
}
