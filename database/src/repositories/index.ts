// Repository functions, one file per table: the only code that runs SQL. Each takes `db` (a Kysely
// instance or a transaction) and does one thing; rules about a row (who may change it, when) live here.
export * from './organizations.ts';
export * from './environments.ts';
export * from './api-keys.ts';
export * from './operator-tokens.ts';
export * from './uploads.ts';
export * from './multipart-uploads.ts';
export * from './videos.ts';
export * from './video-counts.ts';
export * from './video-search.ts';
export * from './video-served-segments.ts';
export * from './renditions.ts';
export * from './webhooks.ts';
export * from './rate-limits.ts';
export * from './encode-nodes.ts';
export * from './idempotency-keys.ts';
export * from './node-leases.ts';
export * from './encode-queue.ts';
export * from './farm-changes.ts';
export * from './signing-keys.ts';
export * from './share-links.ts';
export * from './organization-members.ts';
export * from './dashboard-sessions.ts';
export * from './caption-tracks.ts';
export * from './audio-tracks.ts';
export * from './live-streams.ts';
export * from './farm-credentials.ts';
