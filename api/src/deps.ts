// What the API needs from the outside world, handed in by server.ts (or by a test).
import type { Client } from '@temporalio/client';
import type { ClickHouseHttp } from '@kino/analytics';
import type { Logger, Registry, Storage } from '@kino/infra';
import type { Db } from '@kino/database';
import type { ApiConfig } from './config.ts';
import type { RateLimitOverrides } from './plugins/rate-limits.ts';
import type { DashboardSessions } from './sessions/sessions.ts';
import type { DashboardCookies } from './sessions/cookies.ts';
import type { HostResolver } from '@kino/webhooks';

/** Segments served per video, for the `served` estimate (videos/served-segments.ts). */
export interface ServedSegmentsSource {
  segmentsServed(orgId: string, videoIds: string[]): Promise<Map<string, number>>;
}

export interface ApiDeps {
  db: Db;
  storage: Storage;
  temporal: Client;
  /** Unset when CLICKHOUSE_URL is not configured: /health reports analytics as skipped. */
  clickhouse?: ClickHouseHttp;
  /** Whether the API created the analytics schema yet (server.ts); /health reports analytics failing until then. Unset: not checked. */
  analyticsSchemaMigrated?: () => boolean;
  config: ApiConfig;
  logger: Logger;
  /** Tests shrink limits to prove 429 quickly; the spec's table is the default. */
  rateLimits?: RateLimitOverrides;
  servedSegments?: ServedSegmentsSource;
  /** What GET /metrics serves (server.ts: with the process defaults); a bare registry when unset. */
  metricsRegistry?: Registry;
  /** Set when the dashboard is configured (DASHBOARD_URL): sessions are accepted beside API keys. */
  dashboard?: { sessions: DashboardSessions; cookies: DashboardCookies };
  /** Resolves webhook hosts for the destination check; the system's resolver unless a test hands in one. */
  webhookResolver?: HostResolver;
  /** The limit on a stored source's size (MAX_UPLOAD_BYTES); tests shrink it to prove the refusal without storing 5 GB. */
  maxSourceBytes?: number;
  /** The clock of rate-limit windows and upload expiry. */
  now?: () => Date;
}

/** The app's clock: `deps.now` where a test sets it, else the system's. */
export function clockOf(deps: Pick<ApiDeps, 'now'>): () => Date {
  return deps.now ?? (() => new Date());
}

/** Route plugins receive the dependencies as their options. */
export interface RouteOptions {
  deps: ApiDeps;
}
