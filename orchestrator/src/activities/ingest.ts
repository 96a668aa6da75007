// The fetch of a URL ingest (POST .../videos/ingest), the first step of an ingested video's
// workflow: any orchestrator worker runs it (workers hold the bucket's credentials). The body
// streams into a multipart upload of the video's storage_path, one part in memory at a time.
//
// Resuming: within one attempt, a dropped connection is resumed with Range (fetch-source.ts). Across
// attempts (a worker killed, a retry after a 5xx), the heartbeat carries the multipart upload's id
// and the source's validator; the next attempt lists the parts storage holds and asks for the rest
// with Range and If-Range. A server that answers with the whole body instead (no Range support, or
// the source changed) gets a clean restart: the upload is aborted and the fetch starts at byte 0.
// A final failure, a cancellation (the video deleted), or any failure of the last attempt
// (ingestFetchMaxAttempts) aborts the upload: no parts are left behind in the bucket.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Agent } from 'undici';
import { NoSuchUploadError, type StoredPart } from '@kino/infra';
import { failureTypes, ingestFetchMaxAttempts } from '../activity-types.ts';
import { MAX_UPLOAD_BYTES } from '@kino/proto/contract';
import {
  pinnedLookup,
  resolveWebhookDestination,
  WebhookDestinationError,
  type WebhookDestinationPolicy,
} from '@kino/webhooks';
import {
  anyAddress,
  fetchSource,
  ingestFailureReasons,
  SourceFetchError,
  type DestinationCheck,
  type PartSink,
} from '../ingest/fetch-source.ts';
import { whileHeartbeating } from './heartbeat.ts';
import type { ActivityDeps } from './index.ts';

/** Parts of 8 MB: 5 GB is 640 parts (S3 allows 10,000), and one part is all a fetch holds in memory. */
export const ingestPartBytes = 8 * 1024 ** 2;

export interface FetchIngestSourceInput {
  videoId: string;
  url: string;
  storagePath: string;
}

/** What an attempt leaves in its heartbeat for the next one. */
interface IngestHeartbeat {
  uploadId: string;
  validator?: string;
}

const connectionTimeouts = { headersTimeout: 30_000, bodyTimeout: 60_000 };

/**
 * Each host the fetch reaches (the URL's, and every redirect's) through the webhooks' guard
 * (network/webhook-destinations.ts): resolved, refused unless every address is public, and the
 * connection pinned to the addresses checked. WEBHOOK_ALLOW_PRIVATE (the dev stack) lets any through.
 */
function guardedDestinations(policy: WebhookDestinationPolicy): { check: DestinationCheck; close: () => void } {
  const agents: Agent[] = [];
  const agent = (options: ConstructorParameters<typeof Agent>[0]) => {
    const made = new Agent({ ...connectionTimeouts, ...options });
    agents.push(made);
    return made;
  };
  const close = () => void Promise.allSettled(agents.map((a) => a.close()));
  if (policy.allowPrivate) return { check: anyAddress(agent({})), close };
  return {
    close,
    check: async (url) => {
      try {
        const addresses = await resolveWebhookDestination(url.href, policy.resolve);
        return agent({ connect: { lookup: pinnedLookup(addresses) } });
      } catch (error) {
        if (!(error instanceof WebhookDestinationError)) throw error;
        // A private address is refused for good; a name that does not resolve may resolve shortly.
        throw new SourceFetchError(
          error.reason === 'not_public' ? ingestFailureReasons.addressRefused : ingestFailureReasons.httpError,
          error.message,
          error.reason === 'not_public',
        );
      }
    },
  };
}

export function createIngestActivities({
  storage,
  logger,
  webhookDestinations = { allowPrivate: false },
}: Pick<ActivityDeps, 'storage' | 'logger' | 'webhookDestinations'>) {
  return {
    /**
     * Fetches `url` into `storagePath`. A final failure (an HTTP 4xx, over 5 GB, no accepted
     * container, a refused address) is InvalidSource, never retried; a 5xx or no answer is retried
     * by the workflow's policy, each attempt resuming from the parts stored.
     */
    async fetchIngestSource({
      videoId,
      url,
      storagePath,
    }: FetchIngestSourceInput): Promise<{ sizeBytes: number; resumes: number }> {
      const log = logger.child({ videoId });
      const stored = await storage.head(storagePath);
      if (stored && stored.size > 0) {
        // A retried video whose fetch had finished: the source is there.
        log.info({ storagePath, size: stored.size }, 'ingest source already stored');
        return { sizeBytes: stored.size, resumes: 0 };
      }
      const context = Context.current();
      const previous = context.info.heartbeatDetails as IngestHeartbeat | undefined;
      let uploadId: string | undefined;
      let validator: string | undefined;
      let parts: StoredPart[] = [];
      if (previous?.uploadId) {
        try {
          const held = await storage.listParts(storagePath, previous.uploadId);
          // The whole parts from the first on: where the next attempt picks up.
          let whole = 0;
          while (held[whole]?.partNumber === whole + 1 && held[whole]!.size === ingestPartBytes) whole += 1;
          parts = held.slice(0, whole);
          uploadId = previous.uploadId;
          validator = previous.validator;
        } catch (error) {
          if (!(error instanceof NoSuchUploadError)) throw error;
        }
      }
      uploadId ??= await storage.createMultipartUpload(storagePath, 'application/octet-stream');
      const beat = () =>
        context.heartbeat({ uploadId: uploadId!, ...(validator ? { validator } : {}) } satisfies IngestHeartbeat);
      const sink: PartSink = {
        async writePart(partNumber, bytes) {
          parts = [
            ...parts.slice(0, partNumber - 1),
            await storage.uploadPart(storagePath, uploadId!, partNumber, bytes),
          ];
        },
        async reset() {
          await storage.abortMultipartUpload(storagePath, uploadId!);
          uploadId = await storage.createMultipartUpload(storagePath, 'application/octet-stream');
          parts = [];
          beat();
        },
      };
      const destinations = guardedDestinations(webhookDestinations);
      log.info({ url, resumingAfterParts: parts.length }, 'ingest fetch started');
      try {
        const fetched = await whileHeartbeating(
          () =>
            fetchSource({
              url,
              sink,
              maxBytes: MAX_UPLOAD_BYTES,
              partBytes: ingestPartBytes,
              destination: destinations.check,
              storedParts: parts.length,
              ...(validator ? { validator } : {}),
              resumeDelayMs: (attempt) => 500 * attempt,
              // Cancelled when the video is deleted mid-fetch: stop fetching, drop the parts.
              signal: context.cancellationSignal,
              onProgress: (progress) => {
                validator = progress.validator;
                beat();
              },
            }),
          () => ({ uploadId, ...(validator ? { validator } : {}) }),
        );
        await storage.completeMultipartUpload(storagePath, uploadId, parts);
        log.info(
          { url, size: fetched.sizeBytes, resumes: fetched.resumes, restarted: fetched.restarted },
          'ingest source stored',
        );
        return { sizeBytes: fetched.sizeBytes, resumes: fetched.resumes };
      } catch (error) {
        const final = (error instanceof SourceFetchError && error.final) || context.cancellationSignal.aborted;
        // No attempt follows a final failure, a cancellation or the last attempt's failure: the parts
        // stored go with their upload, none stays in the bucket. Any earlier attempt keeps them for
        // the next to resume.
        if (final || context.info.attempt >= ingestFetchMaxAttempts) {
          await storage
            .abortMultipartUpload(storagePath, uploadId)
            .catch((abortError: unknown) => log.warn({ err: abortError, uploadId }, 'ingest upload not aborted'));
        }
        if (!(error instanceof SourceFetchError)) throw error;
        log.warn(
          { url, reason: error.reason, final: error.final, attempt: context.info.attempt, err: error },
          'ingest fetch failed',
        );
        if (!error.final) throw ApplicationFailure.retryable(error.message, 'SourceUnavailable');
        throw ApplicationFailure.nonRetryable(error.message, failureTypes.invalidSource);
      } finally {
        destinations.close();
      }
    },
  };
}
