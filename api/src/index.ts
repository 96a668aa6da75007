// @kino/api: the HTTP API (`kino api`) and its configuration, the dashboard's server side, and the
// operators' `kino admin` commands. The database it runs on is @kino/database. Exported: what the
// integration tests (test/api/) and the benches use; the package's own commands import its files.
export { parseApiConfig, type ApiConfig } from './config.ts';
export { buildApp, type ApiApp } from './app.ts';
export type { ApiDeps } from './deps.ts';
export { copyServedSegments } from './videos/served-segments.ts';
export {
  sweepAbandonedMultipartUploads,
  sweepUnprocessedOriginals,
  UNPROCESSED_ORIGINAL_GRACE_MS,
} from './uploads/sweeps.ts';
// For test/api/encoding-mapping.test.ts, which checks them against the orchestrator's ladder.
export { ProcessBody } from './routes/videos/process.ts';
export { withDefaultParameters } from './videos/encoding-parameters.ts';
// For test/api/contract-fuzz.test.ts, which raises every rule out of reach.
export { defaultRateLimits } from './plugins/rate-limits.ts';
