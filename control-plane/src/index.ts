// @kino/control-plane: the HTTP API and its configuration. The database it runs on is @kino/database.
export { isPublicAddress, type HostResolver } from './network/webhook-destinations.ts';
export { apiConfigShape, parseApiConfig, type ApiConfig } from './config.ts';
export { buildApp, API_PREFIX, type ApiApp } from './api-server/app.ts';
export { startApiServer, type RunningApi } from './api-server/server.ts';
export type { ApiDeps, ServedSegmentsSource } from './api/deps.ts';
export { copyServedSegments } from './api/served-segments.ts';
export { ApiError } from './api/errors.ts';
export { sweepAbandonedMultipartUploads, sweepUnprocessedOriginals, UNPROCESSED_ORIGINAL_GRACE_MS } from './api/upload-sweeps.ts';
export { defaultRateLimits, type RateLimitOverrides, type RateLimitRuleName } from './api/rate-limits.ts';
export { formatDuration, formatViews, estimateViews, thumbnailUrl } from './api/format.ts';
export { startProcessVideo, startDeleteVideoContent } from './api/workflows.ts';
export * from './api/video-parameters.ts';
