// The playback-token signing keys, kept in the `signing_keys` table: ES256 key
// pairs. The first is made on first use. Rotation makes a new key and retires the old one; a
// retired key signs nothing new but stays in the JWKS until every token it may have signed has
// expired (the longest lifetime, 7 days, plus the time other API processes may still be using
// it from their cache, plus the clock skew delivery nodes allow), so rotation never breaks a signed
// URL that is still valid. Private halves are stored sealed (@kino/database's keys/key-encryption.ts), never in clear.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../database.ts';
import type { KeyEncryption } from '../keys/key-encryption.ts';
import type { SigningKey } from '../schema.ts';
import {
  findNewestActiveSigningKey,
  insertSigningKey,
  listPublishedSigningKeys,
  listSigningKeys,
  rotateSigningKeys,
} from '../repositories/signing-keys.ts';
import {
  MAX_PLAYBACK_TOKEN_SECONDS,
  PLAYBACK_TOKEN_ALGORITHM,
  PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS,
} from '@kino/proto/contract';

/** How long an API process keeps using the key it read before it looks again. */
export const ACTIVE_KEY_CACHE_MS = 60_000;
/** How long the JWKS document is reused before it is read again. */
const JWKS_CACHE_MS = 10_000;
/**
 * A retired key stays published this long: the longest token (7 days), plus the clock skew delivery
 * nodes allow past `exp`, plus the active-key cache (another API process may sign with the old key
 * that long after a rotation), plus five minutes of slack.
 */
export const RETIRED_KEY_GRACE_MS =
  (MAX_PLAYBACK_TOKEN_SECONDS + PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS) * 1000 + ACTIVE_KEY_CACHE_MS + 5 * 60_000;

export interface ActiveSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

export interface Jwks {
  keys: JWK[];
}

export class PlaybackKeyring {
  private active?: { key: ActiveSigningKey; readAt: number };
  private jwksCache?: { value: Jwks; readAt: number };
  private creating?: Promise<SigningKey>;

  private readonly db: Db;
  private readonly encryption: KeyEncryption;
  private readonly now: () => number;
  constructor(db: Db, encryption: KeyEncryption, now: () => number = Date.now) {
    this.db = db;
    this.encryption = encryption;
    this.now = now;
  }

  /** The key new tokens are signed with; made on first use. */
  async activeKey(): Promise<ActiveSigningKey> {
    if (this.active && this.now() - this.active.readAt < ACTIVE_KEY_CACHE_MS) return this.active.key;
    const row = (await this.newestActiveRow()) ?? (await this.createOnce());
    if (!row.private_key_sealed) {
      throw new Error(
        `signing key ${row.kid} is stored in clear: start the API once with KINO_KEY_ENCRYPTION_KEY to seal it`,
      );
    }
    const privateJwk = JSON.parse(this.encryption.open(row.private_key_sealed, row.kid)) as JWK;
    const privateKey = (await importJWK(privateJwk, PLAYBACK_TOKEN_ALGORITHM)) as CryptoKey;
    const key = { kid: row.kid, privateKey };
    this.active = { key, readAt: this.now() };
    return key;
  }

  /** The public keys delivery nodes verify with: active keys and recently retired ones. */
  async jwks(): Promise<Jwks> {
    if (this.jwksCache && this.now() - this.jwksCache.readAt < JWKS_CACHE_MS) return this.jwksCache.value;
    if (!(await this.newestActiveRow())) await this.createOnce();
    const retiredAfter = new Date(this.now() - RETIRED_KEY_GRACE_MS);
    const rows = await listPublishedSigningKeys(this.db, retiredAfter);
    const value = { keys: rows.map((row) => row.public_jwk as JWK) };
    this.jwksCache = { value, readAt: this.now() };
    return value;
  }

  /** Makes a new signing key and retires every other active one. Returns the new kid. */
  async rotate(): Promise<string> {
    const fresh = await this.generate();
    await rotateSigningKeys(this.db, fresh, new Date(this.now()));
    this.active = undefined;
    this.jwksCache = undefined;
    return fresh.kid;
  }

  private newestActiveRow(): Promise<SigningKey | undefined> {
    return findNewestActiveSigningKey(this.db);
  }

  /** One key for all concurrent first users of this process; another process racing is harmless
   *  (both keys are published, the newest signs). */
  private createOnce(): Promise<SigningKey> {
    this.creating ??= (async () => {
      try {
        await insertSigningKey(this.db, await this.generate());
        const row = await this.newestActiveRow();
        if (!row) throw new Error('no active signing key after creating one');
        return row;
      } finally {
        this.creating = undefined;
      }
    })();
    return this.creating;
  }

  private async generate() {
    const { publicKey, privateKey } = await generateKeyPair(PLAYBACK_TOKEN_ALGORITHM, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const meta = { kid, alg: PLAYBACK_TOKEN_ALGORITHM, use: 'sig' };
    return {
      kid,
      algorithm: PLAYBACK_TOKEN_ALGORITHM,
      public_jwk: JSON.stringify({ ...publicJwk, ...meta }),
      private_jwk: null,
      private_key_sealed: this.encryption.seal(JSON.stringify({ ...(await exportJWK(privateKey)), ...meta }), kid),
    };
  }
}

/** A signing key as operators see it (`kino admin playback-keys list`). */
export interface SigningKeyStatus {
  kid: string;
  algorithm: string;
  createdAt: Date;
  retiredAt: Date | null;
  /** `signing`: new tokens are signed with it. `published`: retired, still in the JWKS for the tokens
   *  it signed. `unpublished`: retired long enough that every token it signed has expired. */
  state: 'signing' | 'published' | 'unpublished';
  /** When a retired key leaves the JWKS; null while it is not retired. */
  publishedUntil: Date | null;
}

export async function listSigningKeyStatus(db: Db, now: number = Date.now()): Promise<SigningKeyStatus[]> {
  const rows = await listSigningKeys(db);
  const signingKid = rows.find((row) => !row.retired_at)?.kid;
  return rows.map((row) => {
    const publishedUntil = row.retired_at ? new Date(row.retired_at.getTime() + RETIRED_KEY_GRACE_MS) : null;
    const state =
      row.kid === signingKid
        ? 'signing'
        : !publishedUntil || publishedUntil.getTime() > now
          ? 'published'
          : 'unpublished';
    return {
      kid: row.kid,
      algorithm: row.algorithm,
      createdAt: row.created_at,
      retiredAt: row.retired_at,
      state,
      publishedUntil,
    };
  });
}
