// The orchestrator's TLS identity, from the farm's certificate authority (kept sealed in PostgreSQL,
// made by `kino admin bootstrap`): at each start it issues itself a certificate for the names nodes
// dial (REGISTRY_TLS_NAMES), which serves the registry and, until nodes dial out, is presented to
// the nodes it calls. A farm without a CA runs on plaintext with the shared token, if allowed.
import { KeyEncryption, type Db } from '@kino/database';
import { openFarmAuthority } from '@kino/database/farm-authority';
import { issueCertificateWithNewKey, type CertificateAndKey } from '@kino/proto/farm-tls';
import { orchestratorCommonName } from '@kino/proto';

/** The farm CA (with its key: the registry signs enrolling nodes' certificates) and this process's certificate. */
export interface FarmTls {
  authority: CertificateAndKey;
  /** This orchestrator's certificate and key (server and client), with the CA's certificate. */
  identity: { caCertificate: string; certificate: string; privateKey: string };
}

/** How long an orchestrator's own certificate lasts: it makes a new one at every start. */
const orchestratorCertificateDays = 365;

export class FarmTlsError extends Error {
  override name = 'FarmTlsError';
}

/**
 * The farm's TLS, or undefined for a farm without a CA when the shared token is allowed; a farm
 * without either refuses to start, naming both ways out.
 */
export async function loadFarmTls(
  db: Db,
  { keyEncryptionKey, names, acceptNodeToken }: { keyEncryptionKey: string; names: string[]; acceptNodeToken: boolean },
): Promise<FarmTls | undefined> {
  const authority = await openFarmAuthority(db, new KeyEncryption(keyEncryptionKey));
  if (!authority) {
    if (acceptNodeToken) return undefined;
    throw new FarmTlsError(
      'the farm has no certificate authority, so the registry cannot serve nodes over TLS: run `kino admin bootstrap` with KINO_KEY_ENCRYPTION_KEY set (it makes one), or set REGISTRY_ACCEPT_NODE_TOKEN=true to run nodes on the shared NODE_TOKEN without TLS',
    );
  }
  if (names.length === 0)
    throw new FarmTlsError(
      'REGISTRY_TLS_NAMES is empty: name the host names or addresses nodes dial the registry at (REGISTRY_HOST is a wildcard)',
    );
  const identity = await issueCertificateWithNewKey(authority, {
    commonName: orchestratorCommonName,
    names,
    usages: ['serverAuth', 'clientAuth'],
    validityDays: orchestratorCertificateDays,
  });
  return { authority, identity: { caCertificate: authority.certificate, ...identity } };
}
