// `POST /v1/beacons`: a player's report of a view (issue 58; docs/decisions/player.md "Beacons").
// Accepted (202) only for a video that exists and that this viewer may play: a public one, or a
// private one with a valid playback token in the body; a public-family master's organization and
// environment, when the player sends them, must be the video's (another organization's video is not
// found). A share link's viewer names the link (`shr_…`) as `videoId`, all its player knows: the link,
// alive, stands for its video and is the credential, as on its playlists. Every event is checked
// (beacons.ts); the events are spooled before the answer.
import type { IncomingMessage } from 'node:http';
import { isShareLinkId } from '@kino/database/repositories';
import { BEACON_MAX_BYTES } from '@kino/proto/contract';
import { clientOf, parseBeaconBatch } from '../beacons.ts';
import { DeliveryError, videoNotFound } from '../errors.ts';
import { sendJson } from '../responses.ts';
import { header, viewerOf, type RouteHandler } from './context.ts';

/** application/json, and text/plain: a sendBeacon or fetch with it needs no CORS preflight. */
const acceptedTypes = /^(application\/json|text\/plain)\s*(;|$)/i;

export const receiveBeacons: RouteHandler<'beacons'> = async (deps, { req, res }) => {
  if (req.method !== 'POST') {
    throw new DeliveryError(405, 'method_not_allowed', `${req.method} is not served here: POST beacons.`, undefined, {
      Allow: 'POST, OPTIONS',
    });
  }
  deps.beacons.limiter.take(deps.beacons.clientAddress(req));
  if (!acceptedTypes.test(header(req, 'content-type') ?? '')) {
    throw new DeliveryError(415, 'unsupported_media_type', 'Beacons are sent as application/json or text/plain.');
  }
  const batch = parseBeaconBatch(await readBody(req));
  const viaLink = isShareLinkId(batch.videoId);
  const videoId = viaLink ? await deps.shareLinks.open(batch.videoId, { countView: false }) : batch.videoId;
  const video = await deps.catalog.get(videoId);
  if (!video) throw videoNotFound(batch.videoId);
  if ((batch.orgId ?? video.orgId) !== video.orgId || (batch.envId ?? video.envId) !== video.envId)
    throw videoNotFound(batch.videoId);
  if (!video.allowPublicAccess && !viaLink)
    await deps.tokens.authorize(batch.token ?? null, video.id, viewerOf(req), 'playback');
  await deps.beacons.log.record(
    {
      orgId: video.orgId,
      envId: video.envId,
      videoId: video.id,
      viewId: batch.viewId,
      player: batch.player,
      ...clientOf(header(req, 'user-agent')),
    },
    batch.events,
  );
  sendJson(req, res, 202, { accepted: batch.events.length });
};

/** The request's body as text, refused (413) past BEACON_MAX_BYTES without reading the rest. */
async function readBody(req: IncomingMessage): Promise<string> {
  const declared = Number(header(req, 'content-length') ?? 0);
  if (declared > BEACON_MAX_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BEACON_MAX_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = () =>
  new DeliveryError(413, 'beacon_too_large', `A beacon request is at most ${BEACON_MAX_BYTES} bytes: split the batch.`);
