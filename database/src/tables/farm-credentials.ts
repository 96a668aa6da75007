import type { ColumnType, Generated, Selectable } from 'kysely';

/** The farm's certificate authority: one row (id `farm`). Nodes pin its certificate's SHA-256. */
export interface FarmAuthorityTable {
  id: string;
  /** PEM. */
  certificate: string;
  /** The PKCS #8 PEM private key, sealed with KINO_KEY_ENCRYPTION_KEY (context: the row's id). */
  private_key_sealed: string;
  created_at: Generated<Date>;
}
export type FarmAuthority = Selectable<FarmAuthorityTable>;

/**
 * An encode node's credential: made by `kino admin nodes enroll` with a one-time token (only its
 * hash kept), then traded once for a client certificate signed by the farm CA, whose serial the
 * registry checks at every call. The node registers under `node_id`.
 */
export interface NodeCredentialsTable {
  node_id: string;
  name: string;
  labels: ColumnType<Record<string, string>, string, string>;
  token_hash: string;
  token_expires_at: Date;
  enrolled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Hex, upper case, as node:crypto's X509Certificate prints it. */
  certificate_serial: ColumnType<string | null, string | null | undefined, string | null>;
  certificate_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Generated<Date>;
}
export type NodeCredential = Selectable<NodeCredentialsTable>;
