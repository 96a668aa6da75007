import type { VideoStatus } from './videos.ts';

/**
 * One row per live (not deleted) video: the columns a list filters and sorts on, with the name folded
 * to lower case. Kept equal to `videos` by triggers in the transaction of every write (migration
 * 20261124T0100_video_search); never written by the application. A search reads it instead of
 * `videos`: each match the trigram index finds is checked against a row a quarter the size, whose
 * name needs no folding.
 */
export interface VideoSearchTable {
  id: string;
  org_id: string;
  env_id: string;
  /** lower(name): what `search` matches and `sortBy=name` orders by. */
  name_folded: string;
  status: VideoStatus;
  duration_seconds: number | null;
  created_at: Date;
}
