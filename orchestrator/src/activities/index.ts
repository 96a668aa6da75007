// Every activity the orchestrator's workflows call, built from their dependencies
// (samples-typescript `activities-dependency-injection`): tests hand in fakes.
import type { Logger, Storage } from '@kino/infra';
import type { Db } from '@kino/database';
import type { NodeFarm } from '../node-farm.ts';
import type { EncodeGroupingSetting } from '../activity-types.ts';
import type { OrchestratorMetrics } from '../metrics.ts';
import { createVideoRecordActivities } from './video-records.ts';
import { createAudioTrackRecordActivities } from './audio-track-records.ts';
import { createCaptionTrackRecordActivities } from './caption-track-records.ts';
import { createSoundSeparationActivities } from './sound-separation.ts';
import { createNodeActivities } from './node-work.ts';
import { createStorageActivities } from './storage-work.ts';
import { createIngestActivities } from './ingest.ts';
import { createWebhookActivities } from './webhooks.ts';
import { createLiveBroadcastActivities } from './live-broadcast.ts';
import type { WebhookFetch } from '@kino/webhooks';
import type { WebhookDestinationPolicy } from '@kino/webhooks';

export interface ActivityDeps {
  db: Db;
  storage: Storage;
  /** Where encodes, probes and thumbnails run (createNodeFarm over the registry's tables). */
  farm: NodeFarm;
  logger: Logger;
  /** How workflows group renditions into encode activities (ENCODE_GROUPING); `auto` when unset. */
  encodeGrouping?: EncodeGroupingSetting;
  /** The chunk length of chunked encodes (ENCODE_CHUNK_SECONDS); chunks.ts's default when unset. */
  chunkSeconds?: number;
  /** Videos longer than this are transcribed in pieces of about this length (CAPTIONS_PIECE_SECONDS); the contract's default when unset. */
  transcriptPieceSeconds?: number;
  /** The farm's just-in-time default and run length (JUST_IN_TIME, JUST_IN_TIME_RUN_SECONDS); off when unset. */
  justInTime?: { enabled: boolean; runSeconds: number; bootstrap?: boolean };
  /** Encode seconds and webhook deliveries are recorded here; a throwaway registry's when unset (tests). */
  metrics?: OrchestratorMetrics;
  /** Sends webhook requests; undici's fetch unless a test hands in another. */
  fetch?: WebhookFetch;
  /**
   * WEBHOOK_ALLOW_PRIVATE and the resolver; unset: public addresses only, the system's resolver.
   * URL ingests reach their sources through the same guard and the same setting.
   */
  webhookDestinations?: WebhookDestinationPolicy;
  /**
   * DELIVERY_URL and KINO_KEY_ENCRYPTION_KEY: the URLs in the details object the workflow's webhook
   * events carry as `data`. Unset (tests of other activities): the videoDetails activity fails.
   */
  videoDetails?: { DELIVERY_URL: string; KINO_KEY_ENCRYPTION_KEY: string };
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createVideoRecordActivities(deps),
    ...createCaptionTrackRecordActivities(deps),
    ...createAudioTrackRecordActivities(deps),
    ...createSoundSeparationActivities(deps),
    ...createNodeActivities(deps),
    ...createStorageActivities(deps),
    ...createIngestActivities(deps),
    ...createWebhookActivities(deps),
    ...createLiveBroadcastActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
