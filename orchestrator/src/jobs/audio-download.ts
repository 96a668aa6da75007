// The audio-download job: the video's `audio.m4a` download (objectKeys.audioDownload), its audio
// alone, AAC in an MP4 with moov first, on a node slot. Made once: a retry finds it in storage.
import type { AudioTrackEncode } from '@kino/proto';
import { audioDownloadContentType, isAacAudioCodec, objectKeys } from '@kino/proto/contract';
import type { AudioDownloadInput } from '../activity-types.ts';
import { whileHeartbeating } from '../activities/heartbeat.ts';
import { encodeOnNode } from './encode.ts';
import { urlLifetimeSeconds } from './presign.ts';
import type { NodeJobDeps } from './run-on-node.ts';

/** Makes `audio.m4a` unless storage has it already; answers its key. */
export async function makeAudioDownload(
  deps: NodeJobDeps,
  { videoId, storagePath, rendition, probe, audioTrackKey }: AudioDownloadInput,
): Promise<string> {
  const { storage } = deps;
  const key = objectKeys.audioDownload(videoId);
  if (await whileHeartbeating(() => storage.head(key))) return key;
  const outputUrl = await storage.presignPut(key, urlLifetimeSeconds(), audioDownloadContentType);
  const source = audioDownloadSource({ storagePath, rendition, probe, ...(audioTrackKey ? { audioTrackKey } : {}) });
  const audioTrack: AudioTrackEncode = { ...source.encoding, outputUrl };
  await encodeOnNode(deps, { videoId, storagePath: source.input, probe }, { audioTrack });
  return key;
}

/**
 * Where `audio.m4a` is made from, and whether it is a copy. A remux where the audio is already AAC:
 * the source's own when it is AAC, else the chunked encode's audio track (`audioTrackKey`) when its
 * codec is one written as AAC (aac-he and aac-he-v2 become AAC-LC on a node); an AAC-LC encode of
 * the source otherwise (at `rendition`'s bitrate when its codec is AAC, else 128 kbps).
 */
export function audioDownloadSource({
  storagePath,
  rendition,
  probe,
  audioTrackKey,
}: Omit<AudioDownloadInput, 'videoId'>): {
  input: string;
  encoding: Omit<AudioTrackEncode, 'outputUrl'>;
} {
  const aacRendition = isAacAudioCodec(rendition.audioCodec);
  if (probe.audioCodec === 'aac') return { input: storagePath, encoding: { copy: true } };
  if (audioTrackKey && aacRendition) return { input: audioTrackKey, encoding: { copy: true } };
  return {
    input: storagePath,
    encoding:
      aacRendition && rendition.audioBitrateKbps > 0
        ? { audioCodec: rendition.audioCodec, audioBitrateKbps: rendition.audioBitrateKbps }
        : { audioCodec: 'aac', audioBitrateKbps: 128 },
  };
}
