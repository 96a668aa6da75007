// @kino/sdk/browser: what a web page needs to send a file its application's server minted an upload
// for (`uploads.createDirectUpload` with the API key, on the server). It holds no key and reaches
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
