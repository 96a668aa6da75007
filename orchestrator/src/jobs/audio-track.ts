// The audio-track job: the whole video's audio track for its chunks, encoded once with a rendition's
// audio settings (every rendition shares them) on a node slot. Kept in storage: a retry of the video
// reuses it.
import type { AudioTrackEncode } from '@kino/proto';
import { objectKeys, workContentTypes } from '@kino/proto/contract';
import type { EncodeAudioTrackInput } from '../activity-types.ts';
import type { RenditionPlan } from '../ladder.ts';
import type { QueuePlacement } from '../node-farm.ts';
import { whileHeartbeating } from '../activities/heartbeat.ts';
import { encodeOnNode } from './encode.ts';
import { urlLifetimeSeconds } from './presign.ts';
import type { NodeJobDeps } from './run-on-node.ts';

/** Encodes the track unless storage has it already; answers its key. */
export async function encodeAudioTrack(deps: NodeJobDeps, input: EncodeAudioTrackInput): Promise<string> {
  const { storage } = deps;
  const { videoId, storagePath, rendition, probe, nodeLabels } = input;
  const key = objectKeys.audioTrack(videoId, audioSetting(rendition));
  if (await whileHeartbeating(() => storage.head(key))) return key;
  const outputUrl = await storage.presignPut(key, urlLifetimeSeconds(), workContentTypes.audioTrack);
  const audioTrack: AudioTrackEncode = {
    audioCodec: rendition.audioCodec,
    audioBitrateKbps: rendition.audioBitrateKbps,
    outputUrl,
  };
  await encodeOnNode(
    deps,
    { videoId, storagePath, ...(probe ? { probe } : {}), ...(nodeLabels ? { nodeLabels } : {}) },
    { audioTrack },
    audioTrackPlacement(input),
  );
  return key;
}

/** The audio setting a track is encoded with, in its object's name: `aac-128`. */
function audioSetting(rendition: Pick<RenditionPlan, 'audioCodec' | 'audioBitrateKbps'>): string {
  return `${rendition.audioCodec}-${rendition.audioBitrateKbps}`;
}

/**
 * The track's place in the encode queue. Just in time, it ranks first in its video's playback order
 * (its runs rank from 1 in the background), and its entry names the segments that wait for it: a
 * request raises it. `urgent` (older workflows): someone waits. Otherwise plain queue work (undefined).
 */
export function audioTrackPlacement({
  urgent,
  justInTime,
}: Pick<EncodeAudioTrackInput, 'urgent' | 'justInTime'>): QueuePlacement | undefined {
  if (urgent) return { priority: 1 };
  if (justInTime) return { priority: 0, rank: 0, ...(justInTime.awaiting ? { segments: justInTime.awaiting } : {}) };
  return undefined;
}
