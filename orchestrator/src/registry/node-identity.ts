// Who calls the registry. Over TLS (a farm with its CA), a node is the credential its certificate was
// issued under: the handshake verified the certificate against the farm CA, and here its serial must
// be an enrolled node's, not revoked, at every call. On plaintext (no CA, REGISTRY_ACCEPT_NODE_TOKEN),
// a node presents the shared farm token. Enroll, which comes before any credential, is enroll.ts.
import { createHash, timingSafeEqual } from 'node:crypto';
import { GrpcStatus, verifiedPeerOf } from '@kino/proto';
import type { Db, NodeCredential } from '@kino/database';
import { findNodeCredentialBySerial } from '@kino/database/repositories';

export class RegistryRequestError extends Error {
  readonly code: GrpcStatus;
  constructor(code: GrpcStatus, message: string) {
    super(message);
    this.code = code;
  }
}

/** Checks a call's caller: its credential (TLS), or undefined for a node on the shared token; throws a RegistryRequestError. */
export function createNodeAuthenticator({
  db,
  token,
  tls,
}: {
  db: Db;
  /** The shared farm token; only without TLS. */
  token: string | undefined;
  tls: boolean;
}) {
  const expected = token === undefined ? undefined : createHash('sha256').update(token).digest();
  return async (
    call: Parameters<typeof verifiedPeerOf>[0],
    presentedToken: string,
  ): Promise<NodeCredential | undefined> => {
    if (tls) return credentialOf(db, call);
    if (!expected || !timingSafeEqual(createHash('sha256').update(presentedToken).digest(), expected))
      throw new RegistryRequestError(GrpcStatus.UNAUTHENTICATED, 'wrong or missing farm token');
    return undefined;
  };
}

async function credentialOf(db: Db, call: Parameters<typeof verifiedPeerOf>[0]): Promise<NodeCredential> {
  const peer = verifiedPeerOf(call);
  if (!peer)
    throw new RegistryRequestError(
      GrpcStatus.UNAUTHENTICATED,
      'no client certificate of this farm: enroll the node (`kino admin nodes enroll`, then `kino node start --enroll TOKEN`)',
    );
  const credential = await findNodeCredentialBySerial(db, peer.serial);
  if (!credential || credential.node_id !== peer.commonName)
    throw new RegistryRequestError(
      GrpcStatus.UNAUTHENTICATED,
      `the certificate (serial ${peer.serial}) was not issued to a node enrolled in this farm`,
    );
  // Its own code: the node stops for good rather than retrying (encode-node's registration.ts).
  if (credential.revoked_at)
    throw new RegistryRequestError(
      GrpcStatus.PERMISSION_DENIED,
      `node ${credential.node_id} (${credential.name}) was revoked at ${credential.revoked_at.toISOString()}: its credential no longer works`,
    );
  return credential;
}
