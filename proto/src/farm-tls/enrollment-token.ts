// The enrollment token `kino admin nodes enroll` prints: a one-time secret and the SHA-256 of the
// farm CA's certificate, so that a node's first contact with the registry is verified without
// copying a file (as kubeadm's --discovery-token-ca-cert-hash does). Only the secret's hash is stored.

const pattern = /^(kino_enroll_[0-9A-Za-z]{40})\.([0-9a-f]{64})$/;

export interface EnrollmentToken {
  /** The part the registry checks (its SHA-256 is stored): `kino_enroll_` and 40 base62 characters. */
  secret: string;
  /** The farm CA certificate's SHA-256, lower-case hex: the node trusts the registry only through it. */
  caFingerprint: string;
}

export function formatEnrollmentToken({ secret, caFingerprint }: EnrollmentToken): string {
  return `${secret}.${caFingerprint}`;
}

/** The token's parts, or undefined for anything not shaped like one. */
export function parseEnrollmentToken(token: string): EnrollmentToken | undefined {
  const match = pattern.exec(token.trim());
  return match ? { secret: match[1]!, caFingerprint: match[2]! } : undefined;
}
