// Enroll: a node trades its one-time enrollment token for its own certificate, signed by the farm
// CA for the key pair the node made (its request proves it holds the private key, which never leaves
// it). Each way a token fails has its own message, for the operator who runs the node.
import { GrpcStatus, type EnrollRequest__Output, type EnrollResponse } from '@kino/proto';
import { issueCertificate, publicKeyOfRequest } from '@kino/proto/farm-tls';
import type { Db } from '@kino/database';
import { hashSecret } from '@kino/database';
import {
  enrollNodeCredential,
  type EnrollmentRefusal,
  type EnrollmentRefusalDetail,
} from '@kino/database/repositories';
import type { FarmTls } from './farm-tls.ts';
import { RegistryRequestError } from './node-identity.ts';

/** A node's certificate for `publicKey`: signed by the farm CA, its common name the node's id, lasting NODE_CERTIFICATE_DAYS. */
export function issueNodeCertificate(
  tls: FarmTls,
  publicKey: Awaited<ReturnType<typeof publicKeyOfRequest>>,
  nodeId: string,
) {
  return issueCertificate(tls.authority, publicKey, {
    commonName: nodeId,
    usages: ['clientAuth', 'serverAuth'],
    validityDays: tls.nodeCertificateDays,
  });
}

/** The public key of a node's certificate request, or INVALID_ARGUMENT. */
export async function publicKeyOfNodeRequest(pem: string): Promise<Awaited<ReturnType<typeof publicKeyOfRequest>>> {
  try {
    return await publicKeyOfRequest(pem);
  } catch (error) {
    throw new RegistryRequestError(GrpcStatus.INVALID_ARGUMENT, (error as Error).message);
  }
}

const secretPattern = /^kino_enroll_[0-9A-Za-z]{40}$/;

const refusals: Record<EnrollmentRefusal, (detail: EnrollmentRefusalDetail) => string> = {
  unknown: () => 'unknown enrollment token: mistyped, or made for another farm (kino admin nodes enroll makes one)',
  expired: (d) =>
    `the enrollment token expired at ${d.expiresAt!.toISOString()}: make another with kino admin nodes enroll`,
  used: (d) =>
    `the enrollment token was already used (node ${d.nodeId} enrolled with it at ${d.enrolledAt!.toISOString()}); a token enrolls one node once: make another with kino admin nodes enroll`,
  revoked: (d) => `node ${d.nodeId} was revoked: its enrollment token no longer works`,
  full: (d) =>
    `the enrollment token has enrolled as many live nodes as it may (${d.liveNodeIds!.join(', ')}): revoke one, or make a token for more with kino admin nodes enroll --nodes N`,
};

export async function enrollNode(
  db: Db,
  tls: FarmTls | undefined,
  request: EnrollRequest__Output,
): Promise<EnrollResponse> {
  if (!tls)
    throw new RegistryRequestError(
      GrpcStatus.FAILED_PRECONDITION,
      'this farm has no certificate authority, so nodes cannot enroll: run `kino admin bootstrap` with KINO_KEY_ENCRYPTION_KEY, then restart the orchestrator',
    );
  if (!secretPattern.test(request.token))
    throw new RegistryRequestError(GrpcStatus.UNAUTHENTICATED, 'not an enrollment token (kino_enroll_...)');
  const publicKey = await publicKeyOfNodeRequest(request.certificateRequest);
  const result = await enrollNodeCredential(db, hashSecret(request.token), (credential) =>
    issueNodeCertificate(tls, publicKey, credential.node_id),
  );
  if ('refused' in result)
    throw new RegistryRequestError(GrpcStatus.UNAUTHENTICATED, refusals[result.refused](result.detail ?? {}));
  return {
    nodeId: result.credential.node_id,
    certificate: result.issued.certificate,
    caCertificate: tls.authority.certificate,
  };
}
