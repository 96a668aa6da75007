import type { VideoStatus } from './videos.ts';

/**
 * Live (not deleted) videos per environment and status, kept exact by triggers on `videos` in the
 * transaction of every write (migration 20261123T0300_video_list_scale): list totals without counting rows.
 */
export interface VideoCountsTable {
  env_id: string;
  status: VideoStatus;
  org_id: string;
  videos: number;
}
