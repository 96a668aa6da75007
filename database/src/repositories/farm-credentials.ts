// The farm's certificate authority (one row) and the encode nodes' credentials: enrollment tokens
// (one use, their hash only), the certificate each was traded for, revocation.
import { sql } from 'kysely';
import { newId } from '@kino/infra';
import type { Db } from '../database.ts';
import type { FarmAuthority, NodeCredential, NodeEnrollmentToken } from '../schema.ts';
import { notifyFarmChanged } from './farm-changes.ts';

const farmAuthorityId = 'farm';

export async function findFarmAuthority(db: Db): Promise<FarmAuthority | undefined> {
  return db.selectFrom('farm_authority').selectAll().where('id', '=', farmAuthorityId).executeTakeFirst();
}

/** Stores the farm CA unless one exists (two bootstraps at once keep the first); returns the one stored. */
export async function insertFarmAuthority(
  db: Db,
  authority: { certificate: string; privateKeySealed: string },
): Promise<{ authority: FarmAuthority; created: boolean }> {
  const inserted = await db
    .insertInto('farm_authority')
    .values({
      id: farmAuthorityId,
      certificate: authority.certificate,
      private_key_sealed: authority.privateKeySealed,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { authority: inserted, created: true };
  return { authority: (await findFarmAuthority(db))!, created: false };
}

/** Stores the root of the operator's own registry certificate: enrollment tokens pin it from now on. */
export async function setRegistryCa(db: Db, certificate: string): Promise<void> {
  await db
    .updateTable('farm_authority')
    .set({ registry_ca: certificate })
    .where('id', '=', farmAuthorityId)
    .executeTakeFirstOrThrow();
}

/** The sealed key's context (GCM's additional data): it opens only as this row's. */
export const farmAuthorityKeyContext = `farm_authority:${farmAuthorityId}`;

/** A node credential waiting for its node: the token's hash, valid `tokenValidSeconds` from now (the database's clock). */
export async function createNodeCredential(
  db: Db,
  {
    name,
    labels,
    tokenHash,
    tokenValidSeconds,
  }: { name: string; labels: Record<string, string>; tokenHash: string; tokenValidSeconds: number },
): Promise<NodeCredential> {
  return db
    .insertInto('node_credentials')
    .values({
      node_id: newId('node'),
      name,
      labels: JSON.stringify(labels),
      token_hash: tokenHash,
      token_expires_at: sql<Date>`now() + make_interval(secs => ${tokenValidSeconds})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * An enrollment token several nodes may use: valid `validSeconds` from now (the database's clock), for
 * at most `maxNodes` live nodes at once.
 */
export async function createNodeEnrollmentToken(
  db: Db,
  {
    name,
    labels,
    tokenHash,
    validSeconds,
    maxNodes,
  }: { name: string; labels: Record<string, string>; tokenHash: string; validSeconds: number; maxNodes: number },
): Promise<NodeEnrollmentToken> {
  return db
    .insertInto('node_enrollment_tokens')
    .values({
      id: newId('enr'),
      name,
      labels: JSON.stringify(labels),
      token_hash: tokenHash,
      expires_at: sql<Date>`now() + make_interval(secs => ${validSeconds})`,
      max_nodes: maxNodes,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Why an enrollment token does not enroll: each has its own message for the node's operator. */
export type EnrollmentRefusal = 'unknown' | 'expired' | 'used' | 'revoked' | 'full';

/** What the refusal's message names. */
export interface EnrollmentRefusalDetail {
  nodeId?: string;
  enrolledAt?: Date;
  expiresAt?: Date;
  /** A shared token's live nodes, when it is full. */
  liveNodeIds?: string[];
}

type EnrollmentResult<T> =
  { credential: NodeCredential; issued: T } | { refused: EnrollmentRefusal; detail?: EnrollmentRefusalDetail };

/**
 * Trades an enrollment token (by its hash) for a certificate. A one-time token (node_credentials),
 * under its row's lock: unknown, past its hour, already traded or revoked is refused. A shared token
 * (node_enrollment_tokens), under its row's lock: past its expiry, or with `max_nodes` live nodes
 * already (neither revoked nor gone), is refused; otherwise a new node's credential is made. Then
 * `issue` makes the certificate and its serial is recorded in the same transaction.
 */
export async function enrollNodeCredential<T extends { serial: string; expiresAt: Date }>(
  db: Db,
  tokenHash: string,
  issue: (credential: NodeCredential) => Promise<T>,
): Promise<EnrollmentResult<T>> {
  return db.transaction().execute(async (trx) => {
    const { now } = await sql<{ now: Date }>`select now() as now`.execute(trx).then((r) => r.rows[0]!);
    const credential = await trx
      .selectFrom('node_credentials')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .forUpdate()
      .executeTakeFirst();
    let waiting: NodeCredential;
    if (credential) {
      const detail = { nodeId: credential.node_id, expiresAt: credential.token_expires_at };
      if (credential.revoked_at) return { refused: 'revoked' as const, detail };
      if (credential.enrolled_at)
        return { refused: 'used' as const, detail: { ...detail, enrolledAt: credential.enrolled_at } };
      if (credential.token_expires_at <= now) return { refused: 'expired' as const, detail };
      waiting = credential;
    } else {
      const shared = await credentialFromSharedToken(trx, tokenHash, now);
      if ('refused' in shared) return shared;
      waiting = shared.credential;
    }
    const issued = await issue(waiting);
    const enrolled = await trx
      .updateTable('node_credentials')
      .set({
        enrolled_at: sql<Date>`now()`,
        certificate_serial: issued.serial,
        certificate_expires_at: issued.expiresAt,
      })
      .where('node_id', '=', waiting.node_id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { credential: enrolled, issued };
  });
}

/** A new node's credential from a shared token, which must be known, unexpired and not full. */
async function credentialFromSharedToken(
  trx: Db,
  tokenHash: string,
  now: Date,
): Promise<{ credential: NodeCredential } | { refused: EnrollmentRefusal; detail?: EnrollmentRefusalDetail }> {
  const token = await trx
    .selectFrom('node_enrollment_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
  if (!token) return { refused: 'unknown' };
  if (token.expires_at <= now) return { refused: 'expired', detail: { expiresAt: token.expires_at } };
  const live = await trx
    .selectFrom('node_credentials')
    .leftJoin('encode_nodes', 'encode_nodes.id', 'node_credentials.node_id')
    .select('node_credentials.node_id')
    .where('node_credentials.enrollment_token_id', '=', token.id)
    .where('node_credentials.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('encode_nodes.state', 'is', null), eb('encode_nodes.state', '!=', 'gone')]))
    .execute();
  if (live.length >= token.max_nodes)
    return { refused: 'full', detail: { liveNodeIds: live.map((row) => row.node_id) } };
  const { enrolled_count: number } = await trx
    .updateTable('node_enrollment_tokens')
    .set((eb) => ({ enrolled_count: eb('enrolled_count', '+', 1) }))
    .where('id', '=', token.id)
    .returning('enrolled_count')
    .executeTakeFirstOrThrow();
  const credential = await trx
    .insertInto('node_credentials')
    .values({
      node_id: newId('node'),
      name: `${token.name}-${number}`,
      labels: JSON.stringify(token.labels),
      token_hash: null,
      token_expires_at: token.expires_at,
      enrollment_token_id: token.id,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { credential };
}

/** Why a node's certificate is not renewed. */
export type RenewalRefusal = 'unknown' | 'revoked' | 'expired';

/**
 * Trades a node's current certificate (by its serial) for a new one, under the credential row's lock:
 * an unknown serial (not the current one: an earlier certificate, or another farm's), a revoked
 * credential or a certificate past its end is refused. `issue` makes the certificate; its serial and
 * end replace the old ones in the same transaction, so the old serial stops working at once.
 */
export async function renewNodeCredential<T extends { serial: string; expiresAt: Date }>(
  db: Db,
  serial: string,
  issue: (credential: NodeCredential) => Promise<T>,
): Promise<{ credential: NodeCredential; issued: T } | { refused: RenewalRefusal; credential?: NodeCredential }> {
  return db.transaction().execute(async (trx) => {
    const credential = await trx
      .selectFrom('node_credentials')
      .selectAll()
      .where('certificate_serial', '=', serial.toUpperCase())
      .forUpdate()
      .executeTakeFirst();
    if (!credential) return { refused: 'unknown' as const };
    if (credential.revoked_at) return { refused: 'revoked' as const, credential };
    const { now } = await sql<{ now: Date }>`select now() as now`.execute(trx).then((r) => r.rows[0]!);
    if (!credential.certificate_expires_at || credential.certificate_expires_at <= now)
      return { refused: 'expired' as const, credential };
    const issued = await issue(credential);
    const renewed = await trx
      .updateTable('node_credentials')
      .set({ certificate_serial: issued.serial, certificate_expires_at: issued.expiresAt })
      .where('node_id', '=', credential.node_id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { credential: renewed, issued };
  });
}

/** The credential a certificate was issued under (revoked ones included: the caller refuses them). */
export async function findNodeCredentialBySerial(db: Db, serial: string): Promise<NodeCredential | undefined> {
  return db
    .selectFrom('node_credentials')
    .selectAll()
    .where('certificate_serial', '=', serial.toUpperCase())
    .executeTakeFirst();
}

export async function findNodeCredential(db: Db, nodeId: string): Promise<NodeCredential | undefined> {
  return db.selectFrom('node_credentials').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
}

/**
 * Revokes a node's credential (its enrollment token too, when not traded yet) and drops the node
 * as a lost one is dropped: gone, its leases deleted in the same transaction, the farm woken, so
 * the encodes it runs fail over as NodeLost and are retried elsewhere. A credential already revoked
 * keeps its first revocation time. Undefined: no credential of that node.
 */
export async function revokeNodeCredential(db: Db, nodeId: string): Promise<NodeCredential | undefined> {
  return db.transaction().execute(async (trx) => {
    const revoked = await trx
      .updateTable('node_credentials')
      .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
      .where('node_id', '=', nodeId)
      .returningAll()
      .executeTakeFirst();
    if (!revoked) return undefined;
    await trx.updateTable('encode_nodes').set({ state: 'gone' }).where('id', '=', nodeId).execute();
    await trx.deleteFrom('node_leases').where('node_id', '=', nodeId).execute();
    await notifyFarmChanged(trx);
    return revoked;
  });
}
