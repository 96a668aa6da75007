// Checks playback tokens on the delivery node with the control plane's public keys (JWKS at
// CONTROL_PLANE_URL/.well-known/jwks.json). The key set is cached and fetched again when a token
// names a key it does not hold (rotation), at most once per cooldown (2 s), so a stream of tokens
// with made-up `kid`s costs at most one fetch every 2 s. Only ES256 is accepted: `alg: none` and
// HS256 (an attacker signing with the public key as an HMAC secret) fail before any key is used. A token string that verified
// once is remembered for up to a minute (never past its expiry), so a player's stream of segment
// requests costs one signature check, not one each; the video, expiry and domains are still
// checked on every request.
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import {
  IMAGE_TOKEN_SCOPE,
  PLAYBACK_TOKEN_ALGORITHM,
  PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS,
  PLAYBACK_TOKEN_ISSUER,
  isDomainAllowed,
  type PlaybackClaims,
} from '@kino/proto/contract';
import { DeliveryError } from './errors.ts';

const verifiedCacheMs = 60_000;
const verifiedCacheMax = 20_000;

export class PlaybackTokenVerifier {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;
  private readonly verified = new Map<string, { claims: PlaybackClaims; until: number }>();

  constructor(jwksUrl: URL) {
    this.keys = createRemoteJWKSet(jwksUrl, {
      cacheMaxAge: 10 * 60_000,
      cooldownDuration: 2_000,
      timeoutDuration: 5_000,
    });
  }

  /**
   * The claims of a token that may open `what` of `videoId` from the page named by Origin/Referer;
   * throws a DeliveryError otherwise. An image token opens thumbnails only.
   */
  async authorize(
    token: string | null,
    videoId: string,
    headers: { origin?: string; referer?: string },
    what: 'playback' | 'image' = 'playback',
  ): Promise<PlaybackClaims> {
    if (!token) {
      throw new DeliveryError(
        401,
        'token_required',
        'This video is private: play it with a signed URL (its `token` query parameter).',
      );
    }
    const claims = await this.verify(token);
    // The same tolerance jwtVerify applied: a remembered token expires when a fresh check would refuse it.
    if ((claims.exp + PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS) * 1000 <= Date.now()) {
      throw new DeliveryError(401, 'token_expired', 'The playback token has expired: request a new signed URL.');
    }
    if (claims.aud !== videoId || claims.sub !== videoId) {
      throw new DeliveryError(403, 'token_video_mismatch', `The playback token is for another video, not ${videoId}.`);
    }
    if (claims.scope === IMAGE_TOKEN_SCOPE && what !== 'image') {
      throw new DeliveryError(
        403,
        'token_scope_mismatch',
        "This token opens the video's images only: play it with a signed URL.",
      );
    }
    if (!isDomainAllowed(claims.domains, headers.origin, headers.referer)) {
      throw new DeliveryError(
        403,
        'domain_not_allowed',
        `The playback token only plays on ${claims.domains!.join(', ')}; this request's Origin/Referer is not one of them.`,
      );
    }
    return claims;
  }

  private async verify(token: string): Promise<PlaybackClaims> {
    const now = Date.now();
    const hit = this.verified.get(token);
    if (hit && hit.until > now) return hit.claims;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: PLAYBACK_TOKEN_ISSUER,
        algorithms: [PLAYBACK_TOKEN_ALGORITHM],
        requiredClaims: ['exp', 'sub', 'aud'],
        clockTolerance: PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS,
      }));
    } catch (error) {
      throw mapJoseError(error);
    }
    const claims: PlaybackClaims = {
      iss: String(payload.iss),
      sub: String(payload.sub),
      aud: Array.isArray(payload.aud) ? String(payload.aud[0]) : String(payload.aud),
      exp: Number(payload.exp),
      iat: Number(payload.iat ?? 0),
      ...(Array.isArray(payload.domains) ? { domains: payload.domains.map(String) } : {}),
      ...(payload.scope === IMAGE_TOKEN_SCOPE ? { scope: IMAGE_TOKEN_SCOPE } : {}),
    };
    if (this.verified.size >= verifiedCacheMax) this.verified.clear();
    this.verified.set(token, {
      claims,
      until: Math.min(now + verifiedCacheMs, (claims.exp + PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS) * 1000),
    });
    return claims;
  }
}

function mapJoseError(error: unknown): DeliveryError {
  if (error instanceof joseErrors.JWTExpired) {
    return new DeliveryError(401, 'token_expired', 'The playback token has expired: request a new signed URL.');
  }
  // The key set could not be fetched (timeout, refused, non-200): not the token's fault.
  const keySetUnreachable =
    error instanceof joseErrors.JWKSTimeout ||
    (error instanceof joseErrors.JOSEError && error.constructor === joseErrors.JOSEError) ||
    (error instanceof TypeError && /fetch/i.test(error.message));
  if (keySetUnreachable) {
    return new DeliveryError(
      503,
      'keys_unavailable',
      'The delivery node cannot reach the control plane for its signing keys; try again.',
    );
  }
  if (error instanceof joseErrors.JOSEError) {
    return new DeliveryError(
      401,
      'invalid_token',
      `The playback token is not valid (${error.code}): it is malformed, tampered with or not signed by this service.`,
    );
  }
  return new DeliveryError(
    503,
    'keys_unavailable',
    `Playback tokens cannot be checked now: ${(error as Error).message}`,
  );
}
