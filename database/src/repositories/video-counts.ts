// Live video totals, read from `video_counts` (kept by triggers on `videos`, never written here):
// a list's `pagination.total` without counting a million rows.
import type { Db } from '../database.ts';
import type { VideoStatus } from '../schema.ts';

/** Live videos of an environment, or of a whole organization (the sum of its environments), optionally of one status. */
export async function countLiveVideos(
  db: Db,
  { orgId, envId, status }: { orgId: string; envId?: string; status?: VideoStatus },
): Promise<number> {
  let query = db.selectFrom('video_counts').where('org_id', '=', orgId);
  if (envId) query = query.where('env_id', '=', envId);
  if (status) query = query.where('status', '=', status);
  const row = await query
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('videos'), eb.lit(0)).as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
