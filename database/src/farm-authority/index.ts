// @kino/database/farm-authority: the farm's certificate authority, made once (`kino admin
// bootstrap`) and kept in PostgreSQL with its private key sealed by KINO_KEY_ENCRYPTION_KEY, as the
// playback signing keys are; the orchestrator opens it to serve the registry over TLS and to sign the
// certificates enrolling nodes ask for.
import { certificateFingerprint, createFarmCa, type CertificateAndKey } from '@kino/proto/farm-tls';
import type { Db } from '../database.ts';
import type { KeyEncryption } from '../keys/key-encryption.ts';
import { farmAuthorityKeyContext, findFarmAuthority, insertFarmAuthority } from '../repositories/farm-credentials.ts';

export interface FarmAuthoritySummary {
  /** The CA certificate, PEM. */
  certificate: string;
  /** Its SHA-256, lower-case hex: what enrollment tokens pin. */
  fingerprint: string;
  /** Made by this call (false: it existed). */
  created: boolean;
}

/** Makes the farm CA unless it exists. */
export async function ensureFarmAuthority(db: Db, encryption: KeyEncryption): Promise<FarmAuthoritySummary> {
  const existing = await findFarmAuthority(db);
  if (existing)
    return {
      certificate: existing.certificate,
      fingerprint: certificateFingerprint(existing.certificate),
      created: false,
    };
  const made = await createFarmCa();
  const { authority, created } = await insertFarmAuthority(db, {
    certificate: made.certificate,
    privateKeySealed: encryption.seal(made.privateKey, farmAuthorityKeyContext),
  });
  return { certificate: authority.certificate, fingerprint: certificateFingerprint(authority.certificate), created };
}

/** The farm CA with its private key opened; undefined when the farm has none yet. */
export async function openFarmAuthority(db: Db, encryption: KeyEncryption): Promise<CertificateAndKey | undefined> {
  const row = await findFarmAuthority(db);
  if (!row) return undefined;
  return { certificate: row.certificate, privateKey: encryption.open(row.private_key_sealed, farmAuthorityKeyContext) };
}

/** The farm CA's certificate and fingerprint, without opening its key; undefined when none. */
export async function readFarmAuthority(db: Db): Promise<Omit<FarmAuthoritySummary, 'created'> | undefined> {
  const row = await findFarmAuthority(db);
  return row && { certificate: row.certificate, fingerprint: certificateFingerprint(row.certificate) };
}
