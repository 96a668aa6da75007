// The activities that run on an encode node, one job kind per file in ../jobs/ (probe, whole, chunk,
// audio track, audio download, thumbnail, storyboard) on one way of running a job on a node
// (jobs/run-on-node.ts) and one of presigning its objects (jobs/presign.ts); and the questions the
// workflow asks about the farm before it schedules them. The orchestrator itself never runs ffmpeg.
import { ApplicationFailure } from '@temporalio/activity';
import { failureTypes, type EncodeGrouping } from '../activity-types.ts';
import type { ActivityDeps } from './index.ts';
import { defaultChunkSeconds } from '../chunks.ts';
import { createOrchestratorMetrics } from '../metrics.ts';
import type { NodeJobDeps } from '../jobs/run-on-node.ts';
import { probeSource, type ProbeInput } from '../jobs/probe.ts';
import { encodeOneRendition, encodeWhole } from '../jobs/whole.ts';
import { encodeChunk, findFinishedChunks } from '../jobs/chunk.ts';
import { encodeAudioTrack } from '../jobs/audio-track.ts';
import { makeAudioDownload } from '../jobs/audio-download.ts';
import { makeThumbnail, type ThumbnailInput } from '../jobs/thumbnail.ts';
import { makeStoryboard, type StoryboardInput } from '../jobs/storyboard.ts';
import {
  joinTranscript,
  transcribeSpeech,
  type JoinTranscriptInput,
  type JoinedTranscript,
  type TranscribeInput,
  type TranscribeOutcome,
} from '../jobs/transcribe.ts';
import type {
  AudioDownloadInput,
  EncodeAudioTrackInput,
  EncodeChunkInput,
  EncodeInput,
  EncodeOutcome,
  EncodeRenditionInput,
  FinishedChunks,
  SourceProbe,
} from '../activity-types.ts';

export function createNodeActivities({
  storage,
  farm,
  logger,
  encodeGrouping = 'auto',
  chunkSeconds = defaultChunkSeconds,
  metrics = createOrchestratorMetrics(),
}: Pick<ActivityDeps, 'storage' | 'farm' | 'logger' | 'encodeGrouping' | 'chunkSeconds' | 'metrics'>) {
  const deps: NodeJobDeps = { storage, farm, logger, metrics };
  return {
    /**
     * Fails with NoNodeAvailable (retried by the workflow's policy without limit) until a live node
     * is there, with a free encode slot when `freeSlot` (workflows started before the encode queue
     * ask for a slot; newer ones queue inside the encode and come here only after a long wait).
     */
    async waitForNodeCapacity({ freeSlot }: { freeSlot: boolean }): Promise<void> {
      if (!(await farm.hasLiveNode({ freeSlot }))) {
        throw ApplicationFailure.retryable(
          freeSlot ? 'waiting for an encode node with a free slot' : 'waiting for an encode node to come online',
          failureTypes.noNodeAvailable,
        );
      }
    },

    /** How the workflow groups renditions into encodes (ENCODE_GROUPING); read once per video. */
    async encodeGrouping(): Promise<EncodeGrouping> {
      if (encodeGrouping !== 'auto') return encodeGrouping;
      // One machine: one decode for the whole ladder beats three. Several: fan out across them.
      return (await farm.liveNodeCount()) > 1 ? 'rendition' : 'ladder';
    },

    /** The chunk length of chunked encodes (ENCODE_CHUNK_SECONDS); read once per video. */
    async encodeChunkSeconds(): Promise<number> {
      return chunkSeconds;
    },

    /** Captions from the source's speech, on a node with a speech engine for the language (jobs/transcribe.ts). */
    transcribeSpeech: (input: TranscribeInput): Promise<TranscribeOutcome> => transcribeSpeech(deps, input),
    /** The pieces' words joined and cut into the track's one WebVTT file (jobs/transcribe.ts). */
    joinTranscript: (input: JoinTranscriptInput): Promise<JoinedTranscript> => joinTranscript(deps.storage, input),
    /** The workflow's one probe of the source (jobs/probe.ts). */
    probeSource: (input: ProbeInput): Promise<SourceProbe> => probeSource(deps, input),
    /** The encode activity: renditions of the whole video in one encode on one node (jobs/whole.ts). */
    encodeRenditions: (input: EncodeInput): Promise<EncodeOutcome[]> => encodeWhole(deps, input),
    /** The same for one rendition, for workflows started before the one encode protocol (jobs/whole.ts). */
    encodeRendition: (input: EncodeRenditionInput): Promise<EncodeOutcome> => encodeOneRendition(deps, input),
    /** One chunk of a video, its record kept in storage (jobs/chunk.ts). */
    encodeChunk: (input: EncodeChunkInput): Promise<EncodeOutcome[]> => encodeChunk(deps, input),
    /** The chunks of a plan already done in storage (jobs/chunk.ts). */
    findFinishedChunks: (input: { videoId: string; plan: unknown }): Promise<FinishedChunks> =>
      findFinishedChunks(deps, input),
    /** The whole video's audio track for its chunks (jobs/audio-track.ts). */
    encodeAudioTrack: (input: EncodeAudioTrackInput): Promise<string> => encodeAudioTrack(deps, input),
    /** The video's `audio.m4a` download (jobs/audio-download.ts). */
    makeAudioDownload: (input: AudioDownloadInput): Promise<string> => makeAudioDownload(deps, input),
    /** A thumbnail of the source: the default one, or a custom one (jobs/thumbnail.ts). */
    makeThumbnail: (input: ThumbnailInput): Promise<string> => makeThumbnail(deps, input),
    /** The storyboard's sheets and WebVTT; answers the VTT's key (jobs/storyboard.ts). */
    makeStoryboard: (input: StoryboardInput): Promise<string> => makeStoryboard(deps, input),
  };
}
