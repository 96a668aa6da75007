// @kino/database/farm-authority: the farm's certificate authority, made once (`kino admin
// bootstrap`) and kept in PostgreSQL with its private key sealed by KINO_KEY_ENCRYPTION_KEY, as the
// playback signing keys are; the orchestrator opens it to serve the registry over TLS and to sign the
// certificates enrolling nodes ask for.
import { X509Certificate } from 'node:crypto';
import { certificateFingerprint, createFarmCa, type CertificateAndKey } from '@kino/proto/farm-tls';
import type { Db } from '../database.ts';
import type { KeyEncryption } from '../keys/key-encryption.ts';
import {
  farmAuthorityKeyContext,
  findFarmAuthority,
  insertFarmAuthority,
  setRegistryCa,
} from '../repositories/farm-credentials.ts';

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

/** What enrollment tokens pin: the root of the operator's own registry certificate, or else the farm CA. */
export interface RegistryRoot {
  /** PEM. */
  certificate: string;
  /** Its SHA-256, lower-case hex. */
  fingerprint: string;
  /** `farm`: the farm CA (the registry serves the certificate it issues); `operator`: REGISTRY_TLS_CERT_FILE's root. */
  source: 'farm' | 'operator';
}

/** The farm CA's certificate and fingerprint, without opening its key, and the root tokens pin; undefined when none. */
export async function readFarmAuthority(
  db: Db,
): Promise<(Omit<FarmAuthoritySummary, 'created'> & { registryRoot: RegistryRoot }) | undefined> {
  const row = await findFarmAuthority(db);
  if (!row) return undefined;
  const fingerprint = certificateFingerprint(row.certificate);
  const registryRoot: RegistryRoot = row.registry_ca
    ? { certificate: row.registry_ca, fingerprint: certificateFingerprint(row.registry_ca), source: 'operator' }
    : { certificate: row.certificate, fingerprint, source: 'farm' };
  return { certificate: row.certificate, fingerprint, registryRoot };
}

export class RegistryCaError extends Error {
  override name = 'RegistryCaError';
}

/**
 * Makes `pem` (the root the operator's registry certificate chains to) what enrollment tokens pin.
 * Only a CA certificate that signed itself is taken: a node trusts it alone for the registry, and
 * finds it at the end of the chain the registry serves.
 */
export async function storeRegistryCa(db: Db, pem: string): Promise<RegistryRoot> {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch (error) {
    throw new RegistryCaError(`not a PEM certificate: ${(error as Error).message}`);
  }
  if (!certificate.ca || !certificate.checkIssued(certificate) || !certificate.verify(certificate.publicKey))
    throw new RegistryCaError(
      `${certificate.subject.replace(/\n/g, ', ')} is not a root certificate authority (a CA certificate that signed itself): give the root your registry certificate's chain ends in`,
    );
  if (!(await findFarmAuthority(db)))
    throw new RegistryCaError('the farm has no certificate authority yet: run `kino admin bootstrap` first');
  const stored = certificate.toString();
  await setRegistryCa(db, stored);
  return { certificate: stored, fingerprint: certificateFingerprint(stored), source: 'operator' };
}
