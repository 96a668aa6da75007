// The transcription job (docs/decisions/captions.md): the source's speech made into one WebVTT file
// by a node's speech engine. It waits in the encode queue like an encode, for a slot on a node whose
// engine transcribes the language asked (JobNeeds.transcribeLanguage) and that carries the video's
// node labels; a node lost mid-job is a retry on another, as for any encode.
import { captionContentTypes, objectKeys, type JobNeeds } from '@kino/proto/contract';
import { randomBase62 } from '@kino/infra';
import { urlLifetimeSeconds } from './presign.ts';
import { runJobOnNode, type NodeJobDeps } from './run-on-node.ts';
import { whileHeartbeating } from '../activities/heartbeat.ts';

/** The engine runs at about a third of real time on one core (docs/decisions/captions.md): 2 h of video in 40 min. */
const transcribeCallTimeoutMs = 3 * 60 * 60_000;

export interface TranscribeInput {
  videoId: string;
  storagePath: string;
  /** A BCP 47 tag, or `auto`. */
  language: string;
  nodeLabels?: string[];
}

export interface TranscribeOutcome {
  /** The language transcribed: the one asked, or the one detected for `auto`. */
  language: string;
  /** The WebVTT file the node wrote. */
  key: string;
  sizeBytes: number;
  cues: number;
}

export async function transcribeSpeech(deps: NodeJobDeps, input: TranscribeInput): Promise<TranscribeOutcome> {
  const { storage } = deps;
  const key = objectKeys.caption(input.videoId, input.language, `generated-${randomBase62(12)}`);
  const lifetime = urlLifetimeSeconds();
  const [inputUrl, vttUrl] = await Promise.all([
    storage.presignGet(input.storagePath, lifetime),
    storage.presignPut(key, lifetime, captionContentTypes.vtt),
  ]);
  const needs: JobNeeds = {
    transcribeLanguage: input.language,
    ...(input.nodeLabels?.length ? { labels: input.nodeLabels } : {}),
  };
  // A slot's job heartbeats on its own (runJobOnNode leaves that to encodes' progress): the node
  // answers once, at the end.
  const result = await runJobOnNode(deps, input.videoId, 'transcription', { slot: true, placement: { needs } }, (job) =>
    whileHeartbeating(
      () =>
        deps.farm
          .client(job.node)
          .transcribe(
            { jobId: job.jobId, inputUrl, language: input.language, vttUrl },
            { signal: job.signal, timeoutMs: transcribeCallTimeoutMs },
          ),
      () => ({ nodeId: job.node.nodeId, what: 'transcription' }),
    ),
  );
  const head = await storage.head(key);
  return { language: result.language, key, sizeBytes: head?.size ?? 0, cues: result.cues };
}
