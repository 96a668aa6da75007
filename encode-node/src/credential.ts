// A node's own credential (issue 54): its certificate signed by the farm CA, its private key and the
// root it trusts for the registry (the one its token pinned), kept in its state directory. The first start trades an enrollment token for it
// (`kino node start --registry https://… --enroll TOKEN`); later starts read it, and need no token.
// The key pair is made here and its private half is written only to the state directory.
import { access, chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
  await finishWriting(stateDir);
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

const newPath = (stateDir: string, name: string) => join(stateDir, `${name}.new`);

/**
 * A write the process did not finish: with every `.new` file there (each whole, made by a rename),
 * the new credential was complete and its renames are done now; with only some, it never was and
 * they go (the files in place are the whole previous credential).
 */
async function finishWriting(stateDir: string): Promise<void> {
  const names = Object.values(files);
  const present = await Promise.all(
    names.map((name) =>
      access(newPath(stateDir, name)).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (!present.some(Boolean)) return;
  if (present.every(Boolean)) for (const name of names) await rename(newPath(stateDir, name), join(stateDir, name));
  else for (const name of names) await rm(newPath(stateDir, name), { force: true });
}

/**
 * Written whole or not at all, the key readable by this user only: every file is written beside its
 * place (`.tmp`, renamed to `.new` once whole), then each `.new` renamed into place; a crash part way
 * is finished or undone at the next read (finishWriting), so a node always has one matching pair.
 */
export async function writeCredential(stateDir: string, credential: NodeCredential): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const entries = Object.entries(files) as [keyof NodeCredential, string][];
  for (const [field, name] of entries) {
    const tmp = join(stateDir, `${name}.tmp`);
    await writeFile(tmp, credential[field], { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, newPath(stateDir, name));
  }
  for (const [, name] of entries) await rename(newPath(stateDir, name), join(stateDir, name));
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
  // The root it pinned, which the Enroll call's handshake verified the registry against (the farm CA,
  // or the operator's own root), not the response's farm CA: the registry's certificate may be the operator's.
  const credential = { certificate: enrolled.certificate, privateKey, caCertificate };
  await writeCredential(stateDir, credential);
  logger.info({ nodeId: enrolled.nodeId, stateDir }, 'enrolled: the credential is kept in the state directory');
  return credential;
}
