// Minting playback tokens and signed playback URLs. Only the API mints (it holds the
// private keys); delivery nodes verify with the public keys from the JWKS.
import { SignJWT } from 'jose';
import { deliveryPaths, hlsMasterName } from '@kino/proto/contract';
import type { ActiveSigningKey } from './keyring.ts';
import { PLAYBACK_TOKEN_ALGORITHM, PLAYBACK_TOKEN_ISSUER, type PlaybackClaims } from '@kino/proto/contract';

export interface MintPlaybackTokenInput {
  videoId: string;
  expiresInSeconds: number;
  domains?: readonly string[];
  scope?: PlaybackClaims['scope'];
  /** Seconds since the epoch; defaults to now. */
  issuedAt?: number;
}

export async function mintPlaybackToken(
  key: ActiveSigningKey,
  { videoId, expiresInSeconds, domains, scope, issuedAt = Math.floor(Date.now() / 1000) }: MintPlaybackTokenInput,
): Promise<string> {
  const jwt = new SignJWT({
    ...(domains && domains.length > 0 ? { domains: [...domains] } : {}),
    ...(scope ? { scope } : {}),
  })
    .setProtectedHeader({ alg: PLAYBACK_TOKEN_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setIssuer(PLAYBACK_TOKEN_ISSUER)
    .setSubject(videoId)
    .setAudience(videoId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + expiresInSeconds);
  return jwt.sign(key.privateKey);
}

/** `${deliveryUrl}/v1/private/{publicID}/master.m3u8?token=JWT` */
export function signedPlaybackUrl(deliveryUrl: string, videoId: string, token: string): string {
  return `${deliveryUrl.replace(/\/+$/, '')}${deliveryPaths.privateFile(videoId, hlsMasterName)}?token=${token}`;
}
