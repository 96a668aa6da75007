// The TLS of the farm's gRPC (issue 54): every credential built here, once, for both ends.
// - node -> registry: the node verifies the registry's certificate against the farm CA it pinned at
//   enrollment and presents its own certificate (nodeChannelCredentials; the node's stream to the
//   registry uses the same);
// - the registry asks for a client certificate but lets a call without one reach it (Enroll needs
//   none); every other call reads the verified certificate (verifiedPeerOf) and refuses without one;
// - nothing dials a node: its EncodeService runs inside its Connect stream to the registry, so the
//   node's TLS to the registry covers every call to it (docs/decisions/node-connect.md).
import { X509Certificate, createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { connect, type PeerCertificate } from 'node:tls';
import { grpc } from '../definitions.ts';

/** What a node keeps in its state directory after enrolling: PEMs. */
export interface NodeCredential {
  /** Its certificate, signed by the farm CA; its common name is the node's id. */
  certificate: string;
  privateKey: string;
  /**
   * The root the node trusts for the registry, alone: the one its enrollment token pinned (the farm
   * CA, or the root of the operator's own registry certificate).
   */
  caCertificate: string;
}

/** The orchestrator's own certificate (the registry's, issued at each start): its common name. */
export const orchestratorCommonName = 'kino orchestrator';

/** The credentials a node dials the registry with: the root it pinned only, and its own certificate. */
export function nodeChannelCredentials(credential: NodeCredential): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(
    Buffer.from(credential.caCertificate),
    Buffer.from(credential.privateKey),
    Buffer.from(credential.certificate),
  );
}

/** A node's first contact (Enroll): it trusts the CA it pinned, and has no certificate yet. */
export function enrollingChannelCredentials(caCertificate: string): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(Buffer.from(caCertificate));
}

/**
 * One certificate and key, given once, as grpc-js's certificate providers hand them over. Each
 * listener hears them on the next tick: grpc-js adds its own watcher after the listeners, and an
 * update before that is lost (the server then drops every connection, "unloaded credentials").
 */
class StaticCertificateProvider implements grpc.experimental.CertificateProvider {
  private readonly ca: Buffer;
  private readonly identity: { certificate: Buffer; privateKey: Buffer };
  constructor(ca: Buffer, identity: { certificate: Buffer; privateKey: Buffer }) {
    this.ca = ca;
    this.identity = identity;
  }
  addCaCertificateListener(listener: grpc.experimental.CaCertificateUpdateListener): void {
    process.nextTick(() => listener({ caCertificate: this.ca }));
  }
  removeCaCertificateListener(): void {}
  addIdentityCertificateListener(listener: grpc.experimental.IdentityCertificateUpdateListener): void {
    process.nextTick(() => listener(this.identity));
  }
  removeIdentityCertificateListener(): void {}
}

/**
 * The registry's: it serves `chain` (its certificate, then the certificates up to the root nodes pin,
 * so a node can find that root in it) and asks every client for a certificate of the farm CA
 * (`clientCa`) without requiring one: the handshake of a node that is not enrolled yet succeeds, and
 * only Enroll answers it.
 */
export function registryServerCredentials({
  clientCa,
  chain,
  privateKey,
}: RegistryServerIdentity): grpc.ServerCredentials {
  const provider = new StaticCertificateProvider(Buffer.from(clientCa), {
    certificate: Buffer.from(chain),
    privateKey: Buffer.from(privateKey),
  });
  return grpc.experimental.createCertificateProviderServerCredentials(provider, provider, false);
}

/** What the registry serves TLS with (registryServerCredentials). */
export interface RegistryServerIdentity {
  /** The farm CA: nodes' certificates must be signed by it. */
  clientCa: string;
  /** PEM certificates: the registry's own first, then each issuer up to and including the root nodes pin. */
  chain: string;
  privateKey: string;
}

/** The client certificate a call came with, verified against the farm CA at the handshake; undefined without one. */
export function verifiedPeerOf(call: {
  getAuthContext(): { sslPeerCertificate?: PeerCertificate } | null;
}): { serial: string; commonName: string } | undefined {
  const certificate = call.getAuthContext()?.sslPeerCertificate;
  if (!certificate?.raw) return undefined;
  const parsed = new X509Certificate(certificate.raw);
  const commonName = /(?:^|\n)CN=([^\n]*)/.exec(parsed.subject)?.[1] ?? '';
  return { serial: parsed.serialNumber.toUpperCase(), commonName };
}

/**
 * A node's first contact: the certificate chain the registry at HOST:PORT serves, read without
 * trusting it, and in it the certificate whose SHA-256 is `caFingerprint` (the enrollment token's).
 * The Enroll call that follows trusts that certificate alone and so verifies the registry's fully
 * (chain and host name); a registry that does not serve it is refused here.
 */
export async function fetchPinnedCaCertificate(hostPort: string, caFingerprint: string): Promise<string> {
  const separator = hostPort.lastIndexOf(':');
  const host = hostPort.slice(0, separator).replace(/^\[|\]$/g, '');
  const port = Number(hostPort.slice(separator + 1));
  const chain = await new Promise<PeerCertificate[]>((resolve, reject) => {
    const socket = connect({
      host,
      port,
      rejectUnauthorized: false,
      ALPNProtocols: ['h2'],
      ...(isIP(host) ? {} : { servername: host }),
    });
    socket.setTimeout(10_000, () =>
      socket.destroy(new Error(`the registry at ${hostPort} did not answer within 10 s`)),
    );
    socket.once('secureConnect', () => {
      const certificates: PeerCertificate[] = [];
      let certificate: PeerCertificate | undefined = socket.getPeerCertificate(true);
      while (certificate?.raw && !certificates.some((seen) => seen.raw.equals(certificate!.raw))) {
        certificates.push(certificate);
        certificate = (certificate as { issuerCertificate?: PeerCertificate }).issuerCertificate;
      }
      socket.destroy();
      resolve(certificates);
    });
    socket.once('error', (error) =>
      reject(new Error(`cannot reach the registry at ${hostPort} over TLS: ${error.message}`)),
    );
  });
  const pinned = chain.find(
    (certificate) => createHash('sha256').update(certificate.raw).digest('hex') === caFingerprint,
  );
  if (!pinned)
    throw new Error(
      `the registry at ${hostPort} does not present the farm CA the enrollment token names (SHA-256 ${caFingerprint}): a wrong address, or not this farm's registry`,
    );
  return new X509Certificate(pinned.raw).toString();
}
