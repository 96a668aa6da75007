// Who may publish, and what a publish starts: the stream key is looked up by its SHA-256 (the API
// keeps it so), a missing or disabled stream refuses the publisher, and a good key starts a broadcast
// (its video in the stream's environment, the stream active) in one transaction.
import { hashSecret, type Db, type LiveStream, type Video } from '@kino/database';
import { endBroadcast, findLiveStreamByKeyHash, startBroadcast } from '@kino/database/repositories';
import { defaultEncodingParameters, objectKeys } from '@kino/proto/contract';
import { newId } from '@kino/infra';

/** Why a publisher was refused: no stream has the key, the stream is disabled, or it is already broadcasting. */
export type PublishRefusal = 'unknown_key' | 'disabled' | 'busy';

export type PublishDecision =
  | { accepted: true; stream: LiveStream; video: Video }
  | { accepted: false; reason: PublishRefusal; liveStreamId?: string };

/** A broadcast's video is named after its stream and when it started, as a recording in a list reads best. */
function broadcastName(stream: LiveStream, startedAt: Date): string {
  return `${stream.name} ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Checks a presented key and, when it opens an enabled idle stream, starts its broadcast. */
export async function admitPublisher(
  db: Db,
  presentedKey: string,
  leaseMs: number,
  now = new Date(),
): Promise<PublishDecision> {
  const stream = await findLiveStreamByKeyHash(db, hashSecret(presentedKey));
  if (!stream) return { accepted: false, reason: 'unknown_key' };
  if (stream.disabled_at) return { accepted: false, reason: 'disabled', liveStreamId: stream.id };
  const videoId = newId('vid');
  const started = await startBroadcast(db, {
    streamId: stream.id,
    leaseMs,
    video: {
      id: videoId,
      name: broadcastName(stream, now),
      storagePath: objectKeys.liveSource(stream.org_id, stream.env_id, videoId),
      // A stream without a preset of its own takes the one a process call takes by default.
      videoQuality: stream.video_quality ?? 'standard',
      allowPublicAccess: stream.allow_public_access,
      parameters: defaultEncodingParameters,
    },
  });
  if (!started) {
    // Disabled or taken between the lookup and the transaction's lock.
    return { accepted: false, reason: 'busy', liveStreamId: stream.id };
  }
  return { accepted: true, ...started };
}

/** Whether a presented key opens an enabled stream: SRT's check before its caller's handshake goes on. */
export async function isPublishableKey(db: Db, presentedKey: string): Promise<boolean> {
  const stream = await findLiveStreamByKeyHash(db, hashSecret(presentedKey));
  return stream !== undefined && !stream.disabled_at;
}

/** The publisher is gone for good (its reconnect window passed): the stream is idle again. */
export async function finishBroadcast(db: Db, input: { streamId: string; videoId: string }): Promise<boolean> {
  return endBroadcast(db, input);
}
