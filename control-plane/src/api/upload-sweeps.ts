// Abandoned multipart uploads cost storage for parts nobody will join: an upload still open when its
// day is up is aborted (storage drops the parts) and marked so. Every API instance sweeps now and
// then; two sweeping the same upload is harmless (aborting one already gone is fine).
import type { Db } from '../db/database.ts';
import type { Storage } from '@kino/infra';
import { closeMultipartUpload, listExpiredMultipartUploads } from '../repositories/multipart-uploads.ts';

export const MULTIPART_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** Uploads aborted per sweep at most: a backlog is worked off over a few sweeps, never in one long run. */
const sweepBatch = 100;

/** Aborts the open uploads whose time ran out before `now`; returns the ids aborted. */
export async function sweepAbandonedMultipartUploads(deps: { db: Db; storage: Pick<Storage, 'abortMultipartUpload'> }, now: Date): Promise<string[]> {
  const aborted: string[] = [];
  for (const upload of await listExpiredMultipartUploads(deps.db, now, sweepBatch)) {
    await deps.storage.abortMultipartUpload(upload.bucket_path, upload.storage_upload_id);
    if (await closeMultipartUpload(deps.db, upload.id, 'aborted', now)) aborted.push(upload.id);
  }
  return aborted;
}

/** Runs the sweep every `intervalMs` (the app's clock decides what is expired); returns how to stop it. */
export function scheduleMultipartSweep(
  deps: { db: Db; storage: Pick<Storage, 'abortMultipartUpload'>; now?: () => Date },
  log: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void },
  intervalMs = MULTIPART_SWEEP_INTERVAL_MS,
): () => void {
  const now = deps.now ?? (() => new Date());
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweepAbandonedMultipartUploads(deps, now())
      .then((ids) => {
        if (ids.length > 0) log.info({ uploadIds: ids }, 'abandoned multipart uploads aborted');
      })
      .catch((error: unknown) => log.warn({ err: error }, 'multipart upload sweep failed'))
      .finally(() => {
        sweeping = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
