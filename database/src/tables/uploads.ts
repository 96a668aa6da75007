import type { ColumnType, Generated, Selectable } from 'kysely';

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
  /**
   * When the originals sweep settled this upload, a day after its ticket expired: a live video was
   * made from it (the original kept), or none was (the original removed). Null until then.
   */
  settled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
export type Upload = Selectable<UploadsTable>;

export type MultipartUploadState = 'open' | 'completed' | 'aborted';

/** An upload ticket sent in parts: storage's upload id and the part layout. */
export interface MultipartUploadsTable {
  /** The `uploads` row this belongs to (its id is the API's `uploadId`). */
  upload_id: string;
  storage_upload_id: string;
  part_size: number; // bigint, parsed as a number
  part_count: number;
  state: Generated<MultipartUploadState>;
  closed_at: Date | null;
}
export type MultipartUploadRow = Selectable<MultipartUploadsTable>;
