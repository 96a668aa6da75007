// The whole database, composed from one file per table.
import type { OrganizationsTable } from './tables/organizations.ts';
import type { EnvironmentsTable } from './tables/environments.ts';
import type { ApiKeysTable } from './tables/api-keys.ts';
import type { MultipartUploadsTable, UploadsTable } from './tables/uploads.ts';
import type { VideosTable } from './tables/videos.ts';
import type { VideoCountsTable } from './tables/video-counts.ts';
import type { VideoSearchTable } from './tables/video-search.ts';
import type { VideoServedSegmentsTable } from './tables/video-served-segments.ts';
import type { RenditionsTable } from './tables/renditions.ts';
import type { WebhooksTable } from './tables/webhooks.ts';
import type { RateLimitCountersTable } from './tables/rate-limits.ts';
import type { EncodeNodesTable, EncodeQueueTable, NodeLeasesTable } from './tables/encode-nodes.ts';
import type { SigningKeysTable } from './tables/signing-keys.ts';
import type { IdempotencyKeysTable } from './tables/idempotency-keys.ts';
import type { ShareLinksTable } from './tables/share-links.ts';
import type { DashboardSessionsTable } from './tables/dashboard-sessions.ts';
import type { OrganizationMembersTable } from './tables/organization-members.ts';

export interface Database {
  organizations: OrganizationsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  uploads: UploadsTable;
  multipart_uploads: MultipartUploadsTable;
  videos: VideosTable;
  video_counts: VideoCountsTable;
  video_search: VideoSearchTable;
  video_served_segments: VideoServedSegmentsTable;
  renditions: RenditionsTable;
  webhooks: WebhooksTable;
  rate_limit_counters: RateLimitCountersTable;
  encode_nodes: EncodeNodesTable;
  node_leases: NodeLeasesTable;
  encode_queue: EncodeQueueTable;
  signing_keys: SigningKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  share_links: ShareLinksTable;
  dashboard_sessions: DashboardSessionsTable;
  organization_members: OrganizationMembersTable;
}

export type * from './tables/organizations.ts';
export type * from './tables/environments.ts';
export type * from './tables/api-keys.ts';
export type * from './tables/uploads.ts';
export type * from './tables/videos.ts';
export type * from './tables/video-counts.ts';
export type * from './tables/video-search.ts';
export type * from './tables/video-served-segments.ts';
export type * from './tables/renditions.ts';
export type * from './tables/webhooks.ts';
export type * from './tables/encode-nodes.ts';
export type * from './tables/signing-keys.ts';
export type * from './tables/idempotency-keys.ts';
export type * from './tables/share-links.ts';
export type * from './tables/dashboard-sessions.ts';
export type * from './tables/organization-members.ts';
