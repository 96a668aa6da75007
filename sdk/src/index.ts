// @kino/sdk: the typed client of the Kino API. See client.ts for the entry point.
export { Kino, type KinoOptions, type DevStackInfo } from './client.ts';
export * from './errors.ts';
export { VideoPage, PagePromise } from './pagination.ts';
export {
  contentTypeFor,
  DEFAULT_MULTIPART_THRESHOLD,
  DEFAULT_PARTS_IN_FLIGHT,
  type FileAccess,
  type OpenedFile,
  type UploadOptions,
  type UploadProgress,
  type UploadResumeStore,
  type UploadSource,
  type CreateDirectUploadParams,
} from './resources/uploads.ts';
export type { DirectUpload, DirectSingleUpload, DirectMultipartUpload } from './uploads/direct.ts';
export type { WaitUntilReadyOptions } from './resources/videos.ts';
export type { AnalyticsScope } from './resources/analytics.ts';
export { APIPromise } from './api-promise.ts';
export {
  animatedPreviewUrl,
  pictureUrl,
  type AnimatedPreviewUrlOptions,
  type PictureUrlOptions,
} from './delivery-urls.ts';
export type { CallOptions, FetchLike } from './http.ts';
export type * from './types.ts';
export {
  verifyWebhook,
  WebhookVerificationError,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookHeaders,
} from './webhook-signature.ts';
