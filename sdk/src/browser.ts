// @kino/sdk/browser: what a web page needs to send a file its application's server minted an upload
// for (`uploads.createDirectUpload` with the API key, on the server), and to show a video's pictures
// from the master playlist URL it was given (delivery-urls.ts). It holds no key and reaches
// nothing of the API client: its bundle is the upload code alone, and no request it makes streams
// its body (entries.test.ts checks both).
export {
  uploadFile,
  DEFAULT_DIRECT_UPLOAD_CONCURRENCY,
  type DirectUpload,
  type DirectSingleUpload,
  type DirectMultipartUpload,
  type DirectUploadResumeStore,
  type UploadFileOptions,
  type UploadFileResult,
} from './uploads/direct.ts';
export type { UploadProgress } from './uploads/progress.ts';
export { KinoError, UploadError } from './errors.ts';
export {
  animatedPreviewUrl,
  pictureUrl,
  type AnimatedPreviewUrlOptions,
  type PictureUrlOptions,
} from './delivery-urls.ts';
