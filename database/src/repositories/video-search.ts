// Search over live videos' names, read from `video_search` (kept by triggers on `videos`, never
// written here): each match the trigram index finds is checked against a narrow row whose name is
// folded already, not against the wide `videos` row (docs/list-performance.md).
import { sql } from 'kysely';
import type { Db } from '../database.ts';

/** The columns a list filters and sorts on, besides the folded name: in both `videos` and `video_search`. */
export const LISTED_COLUMNS = ['id', 'org_id', 'env_id', 'status', 'duration_seconds', 'created_at'] as const;

/** `%`, `_` and the escape character itself lose their LIKE meaning. */
function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Live videos whose name contains `search`, case-insensitively (`%` and `_` match themselves):
 * the listed columns and `name_folded`, to filter, sort and count further. `lower(pattern)` against
 * the folded name is what ILIKE does to both sides, so the match is ILIKE's.
 */
export function liveVideosNamed(db: Db, search: string) {
  return db
    .selectFrom('video_search')
    .select([...LISTED_COLUMNS, 'name_folded'])
    .where(sql<boolean>`name_folded like lower(${`%${escapeLikePattern(search)}%`}) escape '\\'`);
}
