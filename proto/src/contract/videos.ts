// The value lists of a video that the API, the SDK, the CLI and the dashboard share: its status,
// the reasons a delete may give, and the content types an upload may declare. The database's
// check constraint on `videos.status` (a migration, fixed once written) spells the same statuses.

export const videoStatuses = ['transcoding', 'ready', 'failed'] as const;
export type VideoStatus = (typeof videoStatuses)[number];

/** The `reason` of DELETE /{orgID}/videos/{publicID}. */
export const deleteReasons = [
  'user_request',
  'policy_violation',
  'copyright_claim',
  'expired_content',
  'admin_action',
] as const;
export type DeleteReason = (typeof deleteReasons)[number];

/**
 * The `contentType` an upload may declare: the interface's five, then two of Kino's own for camera
 * and broadcast files (docs/decisions/uploads.md#camera-and-broadcast-containers): MPEG-TS and
 * M2TS (`video/mp2t`) and MXF (`application/mxf`, its registered type, RFC 4539).
 */
export const uploadContentTypes = [
  'video/mp4',
  'video/quicktime',
  'video/x-msvideo',
  'video/webm',
  'video/x-matroska',
  'video/mp2t',
  'application/mxf',
] as const;
export type UploadContentType = (typeof uploadContentTypes)[number];
export const defaultUploadContentType: UploadContentType = 'video/mp4';

export function isUploadContentType(value: string): value is UploadContentType {
  return (uploadContentTypes as readonly string[]).includes(value);
}

/** The content type a file name's extension suggests (lower case, without the dot). */
export const uploadContentTypeByExtension: Readonly<Record<string, UploadContentType>> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  ts: 'video/mp2t',
  mts: 'video/mp2t',
  m2ts: 'video/mp2t',
  mxf: 'application/mxf',
};
