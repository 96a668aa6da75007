// The playback-token contract shared by the control plane (which signs) and delivery nodes (which
// verify): a JWT signed with ES256, `iss` kino, `sub` and `aud` the video's public id, `exp`,
// `iat`, and an optional `domains` claim. The JWT code itself (jose) stays with the signer and the
// verifier; this file holds the claims, their checks and the expirations, and imports nothing.

export const PLAYBACK_TOKEN_ISSUER = 'kino';
export const PLAYBACK_TOKEN_ALGORITHM = 'ES256';

/** The `expiration` values of GET /{orgID}/videos/{publicID}/signed-url, in seconds. */
export const PLAYBACK_EXPIRATIONS = {
  '15m': 15 * 60,
  '30m': 30 * 60,
  '1h': 60 * 60,
  '4h': 4 * 60 * 60,
  '24h': 24 * 60 * 60,
  '7d': 7 * 24 * 60 * 60,
} as const;
export type PlaybackExpiration = keyof typeof PLAYBACK_EXPIRATIONS;
/** The same values as a list, in the record's order (shortest first). */
export const playbackExpirations = Object.keys(PLAYBACK_EXPIRATIONS) as PlaybackExpiration[];
export const DEFAULT_PLAYBACK_EXPIRATION: PlaybackExpiration = '1h';
export const MAX_PLAYBACK_TOKEN_SECONDS = PLAYBACK_EXPIRATIONS['7d'];
/**
 * How far a delivery node's clock may run ahead of the control plane's: a token is still accepted
 * this long after its `exp` (and before its `iat`). One minute covers NTP-synchronised hosts with
 * room to spare; beyond it a token is refused as expired (docs/security.md).
 */
export const PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS = 60;

export function isPlaybackExpiration(value: string): value is PlaybackExpiration {
  return Object.hasOwn(PLAYBACK_EXPIRATIONS, value);
}

/**
 * The `scope` of a token that opens a video's images only (thumbnails at any size), not its
 * playlists or segments: the token in a private video's `thumbnailUrl` (docs/decisions/delivery.md).
 */
export const IMAGE_TOKEN_SCOPE = 'images';
/** Lifetime of the image token in a private video's `thumbnailUrl`: long enough to render a page. */
export const IMAGE_TOKEN_SECONDS = 60 * 60;

export interface PlaybackClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  /** Hostnames allowed to play; `*.example.com` allows any subdomain of example.com. */
  domains?: string[];
  /** `images`: the token opens the video's thumbnails only. Absent: everything of the video. */
  scope?: typeof IMAGE_TOKEN_SCOPE;
}

export const MAX_PLAYBACK_DOMAINS = 50;
const hostnamePattern = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Parses the `domains` query parameter (comma-separated hostnames). Returns the normalised list,
 * or the entries that are not hostnames. Entries are hostnames only: no scheme, port or path.
 */
export function parseDomainList(value: string): { domains: string[] } | { invalid: string[] } {
  const entries = value
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''))
    .filter(Boolean);
  const invalid = entries.filter((entry) => entry.length > 253 || !hostnamePattern.test(entry));
  if (invalid.length > 0) return { invalid };
  return { domains: [...new Set(entries)] };
}

/**
 * Whether a request may play under a token's `domains`. The page's host comes from Origin, or
 * from Referer when there is no Origin. With a domain list, a request that names no page at all
 * is refused: otherwise dropping the headers would lift the restriction. An entry matches its
 * exact host; `*.example.com` matches every subdomain of example.com (not example.com itself).
 */
export function isDomainAllowed(
  domains: readonly string[] | undefined,
  origin: string | undefined,
  referer: string | undefined,
): boolean {
  if (!domains || domains.length === 0) return true;
  const host = hostOf(origin) ?? hostOf(referer);
  if (!host) return false;
  return domains.some((entry) => (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host === entry));
}

function hostOf(url: string | undefined): string | undefined {
  if (!url || url === 'null') return undefined;
  try {
    return new URL(url).hostname.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}
