import type { Generated, Selectable } from 'kysely';

export interface ShareLinksTable {
  id: string;
  video_id: string;
  org_id: string;
  expires_at: Date;
  max_views: number | null;
  /** Master-playlist loads so far; never above max_views (a check constraint). */
  views: Generated<number>;
  viewer_email: string | null;
  created_at: Generated<Date>;
  revoked_at: Date | null;
}
export type ShareLink = Selectable<ShareLinksTable>;
