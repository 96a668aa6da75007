// The orchestrator's TLS identity, from the farm's certificate authority (kept sealed in PostgreSQL,
// made by `kino admin bootstrap`): at each start it issues itself a certificate for the names nodes
// dial (REGISTRY_TLS_NAMES), which serves the registry; or, when the operator gives one
// (REGISTRY_TLS_CERT_FILE and REGISTRY_TLS_KEY_FILE), it serves the operator's own certificate.
// Either way nodes' certificates are the farm CA's. A farm without a CA runs on plaintext with the
// shared token, if allowed.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { KeyEncryption, type Db } from '@kino/database';
import { openFarmAuthority } from '@kino/database/farm-authority';
import { issueCertificateWithNewKey, type CertificateAndKey } from '@kino/proto/farm-tls';
import { orchestratorCommonName, type RegistryServerIdentity } from '@kino/proto';

/** The farm CA (with its key: the registry signs enrolling nodes' certificates) and what the registry serves. */
export interface FarmTls {
  authority: CertificateAndKey;
  identity: RegistryServerIdentity;
  /** Where the registry's certificate comes from: issued by the farm CA at this start, or the operator's files. */
  source: 'farm' | 'operator';
  /** How long the certificates issued to nodes last (NODE_CERTIFICATE_DAYS), at enrollment and renewal. */
  nodeCertificateDays: number;
}

/** The operator's own registry certificate (PEM files): the chain, up to its root, and its key. */
export interface OperatorCertificateFiles {
  certificateFile: string;
  keyFile: string;
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
  {
    keyEncryptionKey,
    names,
    acceptNodeToken,
    operatorCertificate,
    nodeCertificateDays,
  }: {
    keyEncryptionKey: string;
    names: string[];
    acceptNodeToken: boolean;
    operatorCertificate?: OperatorCertificateFiles | undefined;
    nodeCertificateDays: number;
  },
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
  if (operatorCertificate) {
    const { chain, privateKey } = await readOperatorCertificate(operatorCertificate, names);
    const identity = { clientCa: authority.certificate, chain, privateKey };
    return { authority, identity, source: 'operator', nodeCertificateDays };
  }
  const issued = await issueCertificateWithNewKey(authority, {
    commonName: orchestratorCommonName,
    names,
    usages: ['serverAuth', 'clientAuth'],
    validityDays: orchestratorCertificateDays,
  });
  // The CA after the certificate: a node enrolling finds the farm CA its token pins in the chain.
  const chain = `${issued.certificate.trim()}\n${authority.certificate.trim()}\n`;
  return {
    authority,
    identity: { clientCa: authority.certificate, chain, privateKey: issued.privateKey },
    source: 'farm',
    nodeCertificateDays,
  };
}

const pemCertificatePattern = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The operator's certificate files, checked as a node will check them: the chain runs from the
 * registry's certificate to a root that signed itself (nodes pin that root and find it at the end of
 * the chain), each certificate signed by the next; the key is the first certificate's; the first
 * certificate names every name nodes dial.
 */
export async function readOperatorCertificate(
  { certificateFile, keyFile }: OperatorCertificateFiles,
  names: string[],
): Promise<{ chain: string; privateKey: string }> {
  const [chainText, privateKey] = await Promise.all([readFile(certificateFile, 'utf8'), readFile(keyFile, 'utf8')]);
  const pems = chainText.match(pemCertificatePattern) ?? [];
  if (pems.length === 0) throw new FarmTlsError(`REGISTRY_TLS_CERT_FILE ${certificateFile} holds no PEM certificate`);
  const chain = pems.map((pem) => new X509Certificate(pem));
  const [leaf] = chain as [X509Certificate, ...X509Certificate[]];
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(privateKey);
  } catch (error) {
    throw new FarmTlsError(`REGISTRY_TLS_KEY_FILE ${keyFile} is not a PEM private key: ${(error as Error).message}`);
  }
  if (!leaf.checkPrivateKey(key))
    throw new FarmTlsError(
      `REGISTRY_TLS_KEY_FILE ${keyFile} is not the key of the first certificate of ${certificateFile}`,
    );
  chain.forEach((certificate, index) => {
    const issuer = chain[index + 1] ?? certificate;
    if (!certificate.checkIssued(issuer) || !certificate.verify(issuer.publicKey))
      throw new FarmTlsError(
        index === chain.length - 1
          ? `REGISTRY_TLS_CERT_FILE ${certificateFile} must end with the root its chain leads to (a certificate that signed itself): nodes pin that root and find it there`
          : `REGISTRY_TLS_CERT_FILE ${certificateFile}: certificate ${index + 1} is not signed by certificate ${index + 2}: give the chain in order, the registry's first`,
      );
  });
  const missing = names.filter((name) => (isIP(name) ? !leaf.checkIP(name) : !leaf.checkHost(name)));
  if (missing.length > 0)
    throw new FarmTlsError(
      `the certificate of REGISTRY_TLS_CERT_FILE ${certificateFile} does not name ${missing.join(', ')} (REGISTRY_TLS_NAMES): nodes dialling it there would refuse it`,
    );
  return { chain: `${pems.join('\n')}\n`, privateKey };
}
