// Renew: a node trades its current certificate for a new one before it ends (it asks with a fifth of
// its life left). The caller is the certificate its TLS connection presented, verified against the
// farm CA at the handshake: the serial must be its credential's current one, not revoked, not past its
// end. The new serial replaces the old in the same transaction, so the old certificate stops working
// for any new call at once; the node's open Connect stream, authenticated when it opened, goes on.
import { GrpcStatus, verifiedPeerOf, type RenewRequest__Output, type RenewResponse } from '@kino/proto';
import type { Db } from '@kino/database';
import { renewNodeCredential, type RenewalRefusal } from '@kino/database/repositories';
import type { FarmTls } from './farm-tls.ts';
import { RegistryRequestError } from './node-identity.ts';
import { issueNodeCertificate, publicKeyOfNodeRequest } from './enroll.ts';

const refusals: Record<RenewalRefusal, { code: GrpcStatus; message: (nodeId: string) => string }> = {
  unknown: {
    code: GrpcStatus.UNAUTHENTICATED,
    message: () =>
      'the certificate is not a node credential of this farm, or was renewed already (the node must use its newest)',
  },
  // Its own code, as at every other call: the node stops for good.
  revoked: { code: GrpcStatus.PERMISSION_DENIED, message: (nodeId) => `node ${nodeId} was revoked: it cannot renew` },
  expired: {
    code: GrpcStatus.UNAUTHENTICATED,
    message: (nodeId) => `the certificate of node ${nodeId} has ended: enroll the node again`,
  },
};

export async function renewNode(
  db: Db,
  tls: FarmTls | undefined,
  call: Parameters<typeof verifiedPeerOf>[0] & { request: RenewRequest__Output },
): Promise<RenewResponse & { nodeId: string; serial: string }> {
  const peer = tls && verifiedPeerOf(call);
  if (!tls || !peer)
    throw new RegistryRequestError(
      GrpcStatus.UNAUTHENTICATED,
      'no client certificate of this farm: only an enrolled node renews its certificate',
    );
  const publicKey = await publicKeyOfNodeRequest(call.request.certificateRequest);
  const result = await renewNodeCredential(db, peer.serial, (credential) =>
    issueNodeCertificate(tls, publicKey, credential.node_id),
  );
  if ('refused' in result) {
    const refusal = refusals[result.refused];
    throw new RegistryRequestError(refusal.code, refusal.message(result.credential?.node_id ?? peer.commonName));
  }
  return { certificate: result.issued.certificate, nodeId: result.credential.node_id, serial: result.issued.serial };
}
