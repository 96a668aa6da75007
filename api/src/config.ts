// The configuration of the API process (`kino api`). Keys are environment variable names; a wrong or
// missing value stops the process at start with a message naming every such variable (parseApiConfig).
import {
  env,
  metricsConfigShape,
  parseConfig,
  publicStorageConfigShape,
  storageConfigShape,
  z,
  type CrossCheck,
} from '@kino/infra';
import { isKeyEncryptionKey } from '@kino/database';
import { defaultRateLimits, type RateLimitOverrides, type RateLimitRuleName } from './plugins/rate-limits.ts';

/** An origin as browsers send it: scheme, host and optional port, nothing else. */
export const originPattern = /^https?:\/\/[^/\s:]+(:\d+)?$/;

export const apiConfigShape = {
  API_HOST: z.string().min(1).default('127.0.0.1'),
  API_PORT: env.port(7080),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL'),
  TEMPORAL_ADDRESS: env.hostPort(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  ...storageConfigShape,
  ...publicStorageConfigShape,
  /** Unset: analytics are not configured; /health reports the check as skipped. */
  CLICKHOUSE_URL: env.url().optional(),
  /**
   * A reported view with no beacon for this long is folded into its playback_views row as it is
   * (a player that went without a viewend: @kino/analytics' playback-fold.ts).
   */
  PLAYBACK_VIEW_QUIET_SECONDS: z.coerce.number().int().min(1).max(86_400).default(120),
  /** How often the API folds ended and quiet views (playback-fold.ts). */
  PLAYBACK_FOLD_INTERVAL_MS: z.coerce.number().int().min(100).default(10_000),
  /** How often the API recomputes the marked days of the analytics rollups, segments and experience (rollups.ts). */
  ANALYTICS_ROLLUP_INTERVAL_MS: z.coerce.number().int().min(100).default(10_000),
  /** Comma-separated origins allowed to call the API from a browser; empty allows none. */
  API_CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim().replace(/\/$/, ''))
        .filter(Boolean),
    )
    .refine((origins) => origins.every((origin) => originPattern.test(origin)), {
      message: 'expected a comma-separated list of origins such as https://app.example.com',
    }),
  /**
   * The reverse proxies in front of the API (comma-separated addresses or CIDR ranges, or `loopback`,
   * `uniquelocal`): a request from one of them is taken to come from the address its
   * X-Forwarded-For names, and by the scheme its X-Forwarded-Proto names, so the per-client rate
   * limit and the logs see the client, not the proxy. Empty (the default): the headers are ignored,
   * and no client can pass for another by sending them.
   */
  API_TRUSTED_PROXIES: env.trustedProxies(),
  /** Public base URL of the delivery host: thumbnail and playback URLs are built on it. */
  DELIVERY_URL: env.url().transform((url) => url.replace(/\/$/, '')),
  /** Where encoders publish live streams over RTMP (OBS's "Server"), as the API shows it (issue 56). */
  LIVE_RTMP_URL: env.url().default('rtmp://localhost:1935/live'),
  /** Where encoders publish over SRT, as the API shows it; each stream's URL adds `streamid=<its key>`. */
  LIVE_SRT_URL: env.url().default('srt://localhost:9710'),
  /** Public base URL of the web app, for share links; defaults to the delivery URL. */
  WEB_APP_URL: env
    .url()
    .transform((url) => url.replace(/\/$/, ''))
    .optional(),
  /**
   * Other limits than the spec's, per rule: `video=100000,general=100000` (a benchmark measuring the
   * limiter at its real cost without hitting it). Empty: the spec's table.
   */
  RATE_LIMITS: z
    .string()
    .default('')
    .refine(
      (value) =>
        value
          .split(',')
          .filter(Boolean)
          .every(
            (entry) => rateLimitEntryPattern.test(entry.trim()) && entry.split('=')[0]!.trim() in defaultRateLimits,
          ),
      {
        message: `expected rule=limit pairs separated by commas; rules: ${Object.keys(defaultRateLimits).join(', ')}`,
      },
    )
    .transform((value): RateLimitOverrides =>
      Object.fromEntries(
        value
          .split(',')
          .filter(Boolean)
          .map((entry) => entry.split('=').map((part) => part.trim()))
          .map(([name, limit]) => [name as RateLimitRuleName, { limit: Number(limit) }]),
      ),
    ),
  /**
   * A token of the operators' interface (`kino nodes`, /v1/api/operators/...), sent as
   * `Authorization: Bearer`, accepted beside the operator tokens of the database (`kino admin
   * operator-token create`). Optional: unset, only those are accepted.
   */
  OPERATOR_TOKEN: z.string().min(16, 'OPERATOR_TOKEN must be at least 16 characters').optional(),
  ...metricsConfigShape,
  /**
   * The dashboard's public URL, ending in /dashboard (https://kino.example.com/dashboard). Unset:
   * no dashboard. Set: OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and DASHBOARD_SESSION_SECRET
   * are required (docs/dashboard.md). Its cookies are Secure unless it is plain http on loopback.
   */
  DASHBOARD_URL: env
    .url()
    .transform((url) => url.replace(/\/$/, ''))
    .refine((url) => new URL(url).pathname === '/dashboard', {
      message: "expected the dashboard's URL, ending in /dashboard",
    })
    .refine((url) => new URL(url).protocol === 'https:' || isLoopbackUrl(url), {
      message: 'plain http only on loopback (127.0.0.1, ::1, localhost): session cookies outside it are Secure',
    })
    .optional(),
  /** The OpenID provider's issuer URL (its /.well-known/openid-configuration is read). */
  OIDC_ISSUER: env.url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** Scopes asked for; offline_access brings the refresh token that keeps a session alive. */
  OIDC_SCOPES: z.string().default('openid email profile offline_access'),
  /**
   * A claim of the ID token listing organization ids the user is a member of (besides
   * `kino admin member add`): a provider that manages groups maps them. Unset: members only.
   */
  OIDC_ORGANIZATIONS_CLAIM: z.string().min(1).optional(),
  /** Signs the sign-in cookie and derives CSRF tokens; 32+ characters, the same on every API instance. */
  DASHBOARD_SESSION_SECRET: z.string().min(32, 'DASHBOARD_SESSION_SECRET must be at least 32 characters').optional(),
  /** E-mail addresses that see the farm page (operators), comma-separated. */
  DASHBOARD_OPERATORS: env.list().default([]),
  /** A session unused this long ends (the provider's refresh token may end it sooner). */
  DASHBOARD_SESSION_IDLE_HOURS: z.coerce.number().positive().default(12),
  /**
   * Seals the playback signing keys' private halves in the database (AES-256-GCM): 32 random bytes in
   * base64 (`openssl rand -base64 32`). Required: the API does not start without it. Keep it apart from
   * database backups; losing it means rotating the signing key (tokens already issued then fail).
   */
  KINO_KEY_ENCRYPTION_KEY: z
    .string()
    .refine(isKeyEncryptionKey, { message: 'expected 32 random bytes in base64 (openssl rand -base64 32)' }),
  /**
   * Accept webhook URLs on any address, loopback and private networks included. Off (the default):
   * a webhook's host must resolve to public addresses only (docs/security.md). The dev stack turns it on.
   */
  WEBHOOK_ALLOW_PRIVATE: env.bool(false),
  LOG_LEVEL: env.logLevel(),
};

/** True for http(s) URLs on loopback, where a browser keeps non-Secure cookies of a plain-http origin safe enough. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const dashboardRequires = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'DASHBOARD_SESSION_SECRET'] as const;

/** With DASHBOARD_URL set, the provider's settings are required too (a problem naming each missing one). */
const dashboardSettings: CrossCheck = (values) =>
  values.DASHBOARD_URL
    ? dashboardRequires.filter((name) => !values[name]).map((name) => `${name}: required when DASHBOARD_URL is set`)
    : [];

const rateLimitEntryPattern = /^\s*\w+\s*=\s*\d+\s*$/;

export type ApiConfig = z.infer<z.ZodObject<typeof apiConfigShape>>;

/**
 * The API's configuration from its environment, or a ConfigError naming every problem. `kino api`
 * (through exitOnConfigError) and `kino config check api` both call this, so they cannot disagree.
 */
export function parseApiConfig(source: Record<string, string | undefined> = process.env): ApiConfig {
  return parseConfig(apiConfigShape, source, [dashboardSettings]);
}
