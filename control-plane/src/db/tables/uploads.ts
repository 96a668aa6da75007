import type { Generated, Selectable } from 'kysely';

/** An upload ticket handed out by `upload-url`: the storage path a later `process` call may name. */
export interface UploadsTable {
  id: string;
  org_id: string;
  env_id: string;
  bucket_path: string;
  filename: string;
  content_type: string;
  file_size: number; // bigint, parsed as a number (see database.ts)
  created_at: Generated<Date>;
  expires_at: Date;
}
export type Upload = Selectable<UploadsTable>;
