// @kino/api: the HTTP API (`kino api`) and its configuration, the dashboard's server side, and the
// operators' `kino admin` commands. The database it runs on is @kino/database.
export { apiConfigShape, parseApiConfig, type ApiConfig } from './config.ts';
export { buildApp, API_PREFIX, type ApiApp } from './app.ts';
export { startApiServer, type RunningApi } from './server.ts';
export type { ApiDeps, ServedSegmentsSource } from './deps.ts';
export { copyServedSegments } from './videos/served-segments.ts';
export { ApiError } from './http/errors.ts';
export {
  sweepAbandonedMultipartUploads,
  sweepUnprocessedOriginals,
  UNPROCESSED_ORIGINAL_GRACE_MS,
} from './uploads/sweeps.ts';
export { defaultRateLimits, type RateLimitOverrides, type RateLimitRuleName } from './plugins/rate-limits.ts';
export { startProcessVideo, startDeleteVideoContent } from './videos/workflows.ts';
// For test/api/encoding-mapping.test.ts, which checks them against the orchestrator's ladder.
export { ProcessBody } from './routes/videos/process.ts';
export { withDefaultParameters } from './videos/encoding-parameters.ts';
