// The dashboard as the "application's server" of a direct upload: it mints the upload through the
// API with its session (the same routes `uploads.createDirectUpload` calls with an API key), the
// page sends the file with `@kino/sdk/browser`'s `uploadFile`, then the multipart upload is completed
// and the video processed.
import {
  DEFAULT_MULTIPART_THRESHOLD,
  contentTypeFor,
  type DirectUpload,
  type MultipartUpload,
  type PartUrls,
  type UploadContentType,
  type UploadTicket,
} from '@kino/sdk';
import { isUploadContentType } from '@kino/proto/contract';

/** An API call relative to `/v1/api` with the session, returning the answer's `body`. */
export type SessionApi = <T>(path: string, init: { method: 'POST'; body?: unknown }) => Promise<T>;

/** The API signs at most this many part URLs a call. */
const partUrlsPerCall = 100;

/** The content type storage and the API are told: the file's own when the API accepts it, else from its name. */
export function uploadContentType(file: { name: string; type: string }): UploadContentType {
  return isUploadContentType(file.type) ? file.type : contentTypeFor(file.name);
}

const base = (orgId: string, envId: string) =>
  `/${encodeURIComponent(orgId)}/environments/${encodeURIComponent(envId)}`;

/** A single upload URL up to the SDK's multipart threshold, else a multipart upload with every part's URL. */
export async function mintDirectUpload(
  api: SessionApi,
  target: { orgId: string; envId: string },
  file: { name: string; size: number; type: string },
  multipartThreshold = DEFAULT_MULTIPART_THRESHOLD,
): Promise<DirectUpload> {
  const contentType = uploadContentType(file);
  const fields = { filename: file.name, fileSize: file.size, contentType };
  const root = base(target.orgId, target.envId);
  if (file.size <= multipartThreshold) {
    const ticket = await api<UploadTicket>(`${root}/videos/upload-url`, { method: 'POST', body: fields });
    return {
      kind: 'single',
      bucketPath: ticket.bucketPath,
      fileSize: file.size,
      contentType,
      signedURL: ticket.signedURL,
      expiresAt: ticket.expiresAt,
    };
  }
  const upload = await api<MultipartUpload>(`${root}/uploads/multipart`, { method: 'POST', body: fields });
  const numbers = Array.from({ length: upload.partCount }, (_, index) => index + 1);
  const signed: PartUrls[] = [];
  for (let start = 0; start < numbers.length; start += partUrlsPerCall) {
    const partNumbers = numbers.slice(start, start + partUrlsPerCall);
    signed.push(
      await api<PartUrls>(`${root}/uploads/multipart/${encodeURIComponent(upload.uploadId)}/parts`, {
        method: 'POST',
        body: { partNumbers },
      }),
    );
  }
  return {
    kind: 'multipart',
    uploadId: upload.uploadId,
    bucketPath: upload.bucketPath,
    fileSize: file.size,
    contentType,
    partSize: upload.partSize,
    partCount: upload.partCount,
    parts: signed.flatMap((answer) => answer.parts),
    expiresAt: Math.min(...signed.map((answer) => answer.expiresAt)),
  };
}

/** Once the file is sent: a multipart upload is completed; either way, the path to process. */
export async function completeDirectUpload(
  api: SessionApi,
  target: { orgId: string; envId: string },
  upload: DirectUpload,
): Promise<string> {
  if (upload.kind === 'single') return upload.bucketPath;
  const path = `${base(target.orgId, target.envId)}/uploads/multipart/${encodeURIComponent(upload.uploadId)}/complete`;
  return (await api<{ bucketPath: string }>(path, { method: 'POST' })).bucketPath;
}
