// The probe job: ffprobe of the uploaded original, on a node (no slot). An empty, missing, unreadable
// or picture-less file fails for good.
import { ApplicationFailure } from '@temporalio/activity';
import { failureTypes, type RecordedProbe, type SourceProbe } from '../activity-types.ts';
import { whileHeartbeating } from '../activities/heartbeat.ts';
import { urlLifetimeSeconds } from './presign.ts';
import { quickCallTimeoutMs, runJobOnNode, type NodeJobDeps } from './run-on-node.ts';

export interface ProbeInput {
  videoId: string;
  storagePath: string;
}

/** The workflow's one probe of the source. */
export async function probeSource(
  { storage, farm, logger }: NodeJobDeps,
  { videoId, storagePath }: ProbeInput,
): Promise<SourceProbe> {
  // Storage calls heartbeat as the node call does: the proxy's heartbeat timeout covers the whole attempt.
  const object = await whileHeartbeating(
    () => storage.head(storagePath),
    () => ({ what: 'probe' }),
  );
  if (!object) throw invalidSource(`the uploaded file was not found at ${storagePath}`);
  if (object.size === 0) throw invalidSource('the uploaded file is empty (0 bytes)');
  const inputUrl = await storage.presignGet(storagePath, urlLifetimeSeconds());

  const result = await runJobOnNode({ farm, logger }, videoId, 'probe', { slot: false }, ({ node, jobId, signal }) =>
    farm.client(node).probe({ jobId, inputUrl }, { signal, timeoutMs: quickCallTimeoutMs }),
  );
  // No picture is an audio-only video when there is sound; neither is not a video at all.
  if (!(result.width > 0 && result.height > 0) && !result.hasAudio)
    throw invalidSource('the file has neither a video nor an audio stream');
  if (!(result.durationSeconds > 0)) throw invalidSource('the video has no duration (no decodable frames)');
  return {
    ...result,
    // A node of an earlier version does not say (0): the container's duration, as it used then.
    videoDurationSeconds: result.videoDurationSeconds || result.durationSeconds,
    frameCount: Number(result.frameCount),
    sizeBytes: Number(result.sizeBytes) || object.size,
  };
}

/**
 * The source's probe for an encode: the one the workflow sends. An activity scheduled by a
 * workflow started before the probe travelled (none, or one without the video stream's duration)
 * probes the source once here.
 */
export async function sourceOf(
  deps: NodeJobDeps,
  { videoId, storagePath, probe }: ProbeInput & { probe?: RecordedProbe | undefined },
): Promise<SourceProbe> {
  if (
    probe?.videoDurationSeconds !== undefined &&
    probe.audioChannels !== undefined &&
    probe.audioSampleRate !== undefined
  )
    return probe as SourceProbe;
  return probeSource(deps, { videoId, storagePath });
}

function invalidSource(reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(reason, failureTypes.invalidSource);
}
