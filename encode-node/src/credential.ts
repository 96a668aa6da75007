// A node's own credential (issue 54): its certificate signed by the farm CA, its private key and the
// CA's certificate, kept in its state directory. The first start trades an enrollment token for it
// (`kino node start --registry https://… --enroll TOKEN`); later starts read it, and need no token.
// The key pair is made here and its private half is written only to the state directory.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  createRegistryClient,
  enrollingChannelCredentials,
  fetchPinnedCaCertificate,
  type NodeCredential,
} from '@kino/proto';
import { createCertificateRequest, parseEnrollmentToken } from '@kino/proto/farm-tls';

const files = { certificate: 'node.crt', privateKey: 'node.key', caCertificate: 'ca.crt' } as const;

export class NodeCredentialError extends Error {
  override name = 'NodeCredentialError';
}

async function readCredential(stateDir: string): Promise<NodeCredential | undefined> {
  try {
    const [certificate, privateKey, caCertificate] = await Promise.all(
      [files.certificate, files.privateKey, files.caCertificate].map((name) => readFile(join(stateDir, name), 'utf8')),
    );
    return { certificate: certificate!, privateKey: privateKey!, caCertificate: caCertificate! };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Written whole or not at all (a file then a rename each), the key readable by this user only. */
async function writeCredential(stateDir: string, credential: NodeCredential): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  for (const [field, name] of Object.entries(files) as [keyof NodeCredential, string][]) {
    const path = join(stateDir, name);
    await writeFile(`${path}.new`, credential[field], { mode: 0o600 });
    await chmod(`${path}.new`, 0o600);
    await rename(`${path}.new`, path);
  }
}

/**
 * The node's credential: the one in `stateDir`, or else the one `enrollToken` is traded for at the
 * registry (HOST:PORT), which is first checked to serve the farm CA the token pins.
 */
export async function loadOrEnrollCredential({
  registry,
  stateDir,
  enrollToken,
  logger,
}: {
  registry: string;
  stateDir: string;
  enrollToken?: string | undefined;
  logger: Logger;
}): Promise<NodeCredential> {
  const stored = await readCredential(stateDir);
  if (stored) {
    if (enrollToken)
      logger.info({ stateDir }, 'the node is enrolled already: its credential is used, the token ignored');
    return stored;
  }
  if (!enrollToken)
    throw new NodeCredentialError(
      `no credential in ${stateDir} and no enrollment token: make one with \`kino admin nodes enroll --name NAME\` and start the node with --enroll TOKEN`,
    );
  const token = parseEnrollmentToken(enrollToken);
  if (!token)
    throw new NodeCredentialError(
      'NODE_ENROLL_TOKEN is not an enrollment token (kino_enroll_<40 characters>.<64 hex digits>, as kino admin nodes enroll prints it)',
    );
  const caCertificate = await fetchPinnedCaCertificate(registry, token.caFingerprint);
  const { request, privateKey } = await createCertificateRequest('kino node');
  const client = createRegistryClient(registry, enrollingChannelCredentials(caCertificate));
  let enrolled: Awaited<ReturnType<typeof client.enroll>>;
  try {
    enrolled = await client.enroll({ token: token.secret, certificateRequest: request }, { timeoutMs: 15_000 });
  } catch (error) {
    const details = (error as { details?: string }).details ?? (error as Error).message;
    throw new NodeCredentialError(`the registry at ${registry} refused the enrollment: ${details}`);
  } finally {
    client.close();
  }
  const credential = { certificate: enrolled.certificate, privateKey, caCertificate: enrolled.caCertificate };
  await writeCredential(stateDir, credential);
  logger.info({ nodeId: enrolled.nodeId, stateDir }, 'enrolled: the credential is kept in the state directory');
  return credential;
}
