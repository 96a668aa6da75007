// Certificates of the farm's own authority (issue 54): the CA, the registry's certificate, each
// node's, and the request a node sends to enroll. @peculiar/x509 makes and signs them (node:crypto
// reads and verifies certificates but issues none; docs/decisions/security.md#farm-certificates);
// node:crypto's X509Certificate reads them everywhere else. Every key is ECDSA P-256.
// The library's dependency injection (tsyringe) needs the Reflect metadata polyfill loaded first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

// Node's global Web Crypto (the same as node:crypto's webcrypto, typed as the library expects).
const { subtle } = globalThis.crypto;
x509.cryptoProvider.set(globalThis.crypto);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const dayMs = 86_400_000;

/** A certificate and its private key, both PEM (the key PKCS #8). */
export interface CertificateAndKey {
  certificate: string;
  privateKey: string;
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return (await subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`.replace(
    /\n\n/g,
    '\n',
  );
}

async function importPrivateKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return subtle.importKey('pkcs8', der, algorithm, false, ['sign']);
}

/** A fresh serial: 16 random bytes, the first bit clear so it reads as a positive integer. */
function newSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

/** The farm's certificate authority: self-signed, signs certificates only, valid 20 years. */
export async function createFarmCa(commonName = 'Kino farm CA'): Promise<CertificateAndKey> {
  const keys = await generateKeys();
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: newSerial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - 5 * 60_000),
    notAfter: new Date(now + 20 * 365 * dayMs),
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificate: certificate.toString('pem'), privateKey: await privateKeyPem(keys.privateKey) };
}

export interface IssueOptions {
  /** The subject's common name: a node's id, or the orchestrator's name. */
  commonName: string;
  /** Host names and IP addresses the certificate is valid for (a server's); none for a node's. */
  names?: string[];
  /** Both: the registry's (it also dials nodes) and a node's (it also serves the orchestrator's calls). */
  usages: ('serverAuth' | 'clientAuth')[];
  validityDays: number;
}

/** A certificate signed by `ca` for `publicKey`; with its serial (upper-case hex, as X509Certificate prints it) and end. */
export async function issueCertificate(
  ca: CertificateAndKey,
  publicKey: x509.PublicKey | CryptoKey,
  { commonName, names = [], usages, validityDays }: IssueOptions,
): Promise<{ certificate: string; serial: string; expiresAt: Date }> {
  const issuer = new x509.X509Certificate(ca.certificate);
  const now = Date.now();
  const notAfter = new Date(now + validityDays * dayMs);
  // Valid a little before now, for clocks behind ours: 5 minutes, or a tenth of a short life (a
  // test's certificate of seconds), so that a fifth of the life is still ahead when it is issued.
  const notBefore = new Date(now - Math.min(5 * 60_000, (validityDays * dayMs) / 10));
  const serial = newSerial();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension(
      usages.map((usage) =>
        usage === 'serverAuth' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
      ),
    ),
    await x509.AuthorityKeyIdentifierExtension.create(issuer, false),
  ];
  if (names.length > 0)
    extensions.push(
      new x509.SubjectAlternativeNameExtension(
        names.map((name) =>
          isIP(name) ? { type: 'ip' as const, value: name } : { type: 'dns' as const, value: name },
        ),
      ),
    );
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial,
    subject: `CN=${commonName}`,
    issuer: issuer.subject,
    notBefore,
    notAfter,
    publicKey,
    signingKey: await importPrivateKey(ca.privateKey),
    signingAlgorithm: algorithm,
    extensions,
  });
  const pem = certificate.toString('pem');
  return { certificate: pem, serial: new X509Certificate(pem).serialNumber.toUpperCase(), expiresAt: notAfter };
}

/** A new key pair and its certificate signed by `ca`: a process's own identity (the orchestrator's, made at each start). */
export async function issueCertificateWithNewKey(
  ca: CertificateAndKey,
  options: IssueOptions,
): Promise<CertificateAndKey> {
  const keys = await generateKeys();
  const { certificate } = await issueCertificate(ca, keys.publicKey, options);
  return { certificate, privateKey: await privateKeyPem(keys.privateKey) };
}

/** A key pair made here and a certificate request for it: the private key never leaves this process but to the node's disk. */
export async function createCertificateRequest(commonName: string): Promise<{ request: string; privateKey: string }> {
  const keys = await generateKeys();
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${commonName}`,
    keys,
    signingAlgorithm: algorithm,
  });
  return { request: request.toString('pem'), privateKey: await privateKeyPem(keys.privateKey) };
}

/** The public key of a certificate request whose signature holds (the sender has its private key); throws otherwise. */
export async function publicKeyOfRequest(pem: string): Promise<x509.PublicKey> {
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(pem);
  } catch (error) {
    throw new Error(`not a PEM certificate request: ${(error as Error).message}`);
  }
  if (!(await request.verify())) throw new Error('the certificate request is not signed by its own key');
  return request.publicKey;
}

/** The SHA-256 of a certificate's DER, lower-case hex: what an enrollment token pins. */
export function certificateFingerprint(pem: string): string {
  return createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
}
