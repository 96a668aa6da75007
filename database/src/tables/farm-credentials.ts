import type { ColumnType, Generated, Selectable } from 'kysely';

/** The farm's certificate authority: one row (id `farm`). Nodes pin its certificate's SHA-256. */
export interface FarmAuthorityTable {
  id: string;
  /** PEM. */
  certificate: string;
  /** The PKCS #8 PEM private key, sealed with KINO_KEY_ENCRYPTION_KEY (context: the row's id). */
  private_key_sealed: string;
  /**
   * PEM: the root of the operator's own registry certificate (REGISTRY_TLS_CERT_FILE), which
   * enrollment tokens pin instead of the farm CA; null while the registry serves the farm CA's.
   */
  registry_ca: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** Null for a node enrolled with a token several nodes share (`enrollment_token_id`). */
  token_hash: string | null;
  token_expires_at: Date;
  enrolled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Hex, upper case, as node:crypto's X509Certificate prints it. */
  certificate_serial: ColumnType<string | null, string | null | undefined, string | null>;
  certificate_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The shared token this node enrolled with, if it did. */
  enrollment_token_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}
export type NodeCredential = Selectable<NodeCredentialsTable>;

/**
 * An enrollment token several nodes may use (`kino admin nodes enroll --nodes N`): until it expires,
 * each node trades it for a credential of its own, while fewer than `max_nodes` of the nodes it
 * enrolled are live (neither revoked nor gone). Only its hash is kept.
 */
export interface NodeEnrollmentTokensTable {
  id: string;
  /** Its nodes are named `<name>-<n>`. */
  name: string;
  labels: ColumnType<Record<string, string>, string, string>;
  token_hash: string;
  expires_at: Date;
  max_nodes: number;
  /** How many nodes it has enrolled, gone ones included: numbers their names. */
  enrolled_count: Generated<number>;
  created_at: Generated<Date>;
}
export type NodeEnrollmentToken = Selectable<NodeEnrollmentTokensTable>;
