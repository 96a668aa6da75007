// What clients that give up leave in storage, swept by every API instance now and then; two
// instances sweeping the same upload is harmless (aborting or deleting what is already gone is fine).
// - Abandoned multipart uploads cost storage for parts nobody will join: an upload still open when
//   its day is up is aborted (storage drops the parts) and marked so.
// - Originals never processed (uploaded, then no `process` came: a client that gave up, or retried
//   its upload while the API was down) are removed a day after their ticket expired, unless a live
//   video was made from them; either way the upload is marked settled and not looked at again.
import type { Db } from '@kino/database';
import type { Storage } from '@kino/infra';
import {
  closeMultipartUpload,
  listExpiredMultipartUploads,
  listUnsettledUploads,
  markUploadsSettled,
} from '@kino/database/repositories';
import { clockOf } from '../deps.ts';

export const UPLOAD_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** How long after its ticket expired an original no video was made from is kept (docs/decisions/uploads.md#originals-never-processed). */
export const UNPROCESSED_ORIGINAL_GRACE_MS = 24 * 60 * 60 * 1000;
/** Uploads handled per sweep at most: a backlog is worked off over a few sweeps, never in one long run. */
const sweepBatch = 100;

type SweepDeps = { db: Db; storage: Pick<Storage, 'abortMultipartUpload' | 'deleteMany'> };

/** Aborts the open uploads whose time ran out before `now`; returns the ids aborted. */
export async function sweepAbandonedMultipartUploads(
  deps: { db: Db; storage: Pick<Storage, 'abortMultipartUpload'> },
  now: Date,
): Promise<string[]> {
  const aborted: string[] = [];
  for (const upload of await listExpiredMultipartUploads(deps.db, now, sweepBatch)) {
    await deps.storage.abortMultipartUpload(upload.bucket_path, upload.storage_upload_id);
    if (await closeMultipartUpload(deps.db, upload.id, 'aborted', now)) aborted.push(upload.id);
  }
  return aborted;
}

/**
 * Settles the uploads whose ticket expired more than a day before `now`: removes the originals no
 * live video was made from, keeps the others. Returns the storage paths removed.
 */
export async function sweepUnprocessedOriginals(
  deps: { db: Db; storage: Pick<Storage, 'deleteMany'> },
  now: Date,
): Promise<string[]> {
  const uploads = await listUnsettledUploads(
    deps.db,
    new Date(now.getTime() - UNPROCESSED_ORIGINAL_GRACE_MS),
    sweepBatch,
  );
  const removed = uploads.filter((upload) => !upload.processed).map((upload) => upload.bucket_path);
  // Removed before the uploads are marked: a sweep that dies between the two removes them again.
  await deps.storage.deleteMany(removed);
  await markUploadsSettled(
    deps.db,
    uploads.map((upload) => upload.id),
    now,
  );
  return removed;
}

/** Runs both sweeps every `intervalMs` (the app's clock decides what is expired); returns how to stop them. */
export function scheduleUploadSweeps(
  deps: SweepDeps & { now?: () => Date },
  log: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void },
  intervalMs = UPLOAD_SWEEP_INTERVAL_MS,
): () => void {
  const now = clockOf(deps);
  const sweep = async (at: Date) => {
    try {
      const ids = await sweepAbandonedMultipartUploads(deps, at);
      if (ids.length > 0) log.info({ uploadIds: ids }, 'abandoned multipart uploads aborted');
    } catch (error) {
      log.warn({ err: error }, 'multipart upload sweep failed');
    }
    try {
      const paths = await sweepUnprocessedOriginals(deps, at);
      if (paths.length > 0) log.info({ bucketPaths: paths }, 'originals never processed removed');
    } catch (error) {
      log.warn({ err: error }, 'originals sweep failed');
    }
  };
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    void sweep(now()).finally(() => {
      sweeping = false;
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
