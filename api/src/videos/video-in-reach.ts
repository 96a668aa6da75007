// The video a path names, as the caller's key may see it: the one lookup every video route starts
// with, so "missing", "another organization's" and "another environment's" answer alike everywhere.
import type { Video } from '@kino/database';
import { getVideo } from '@kino/database/repositories';
import type { ApiDeps } from '../deps.ts';
import type { Access } from '../http/fastify-augment.ts';
import { assertEnvironmentReach } from '../plugins/access.ts';
import { NotFoundError } from '../http/errors.ts';

/** The video, deleted or not: 404 `video_not_found` when missing or in another organization, 403 across environments. */
export async function videoInReach(deps: Pick<ApiDeps, 'db'>, access: Access, videoId: string): Promise<Video> {
  const video = await getVideo(deps.db, videoId);
  if (!video || video.org_id !== access.orgId)
    throw new NotFoundError('video_not_found', `Video ${videoId} does not exist.`);
  assertEnvironmentReach(access, video.env_id);
  return video;
}

/** As `videoInReach`, and a deleted video is 404 too. */
export async function liveVideoInReach(deps: Pick<ApiDeps, 'db'>, access: Access, videoId: string): Promise<Video> {
  const video = await videoInReach(deps, access, videoId);
  if (video.deleted_at) throw new NotFoundError('video_not_found', `Video ${videoId} does not exist.`);
  return video;
}
