// The operators' interface (`kino nodes`): the encode nodes the registry knows, draining one, and
// revoking one's credential.
// Not for API keys: an operator presents, as `Authorization: Bearer`, an operator token (made by
// `kino admin operator-token create` or `kino admin bootstrap`, stored hashed) or the control plane's
// OPERATOR_TOKEN when one is configured. Left out of the public OpenAPI document, which describes
// the developers' API; docs/operations.md describes this one.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteOptions } from '../deps.ts';
import type { EncodeNode, Db } from '@kino/database';
import {
  findActiveOperatorToken,
  listEncodeNodesWithLoad,
  listWaitingEncodes,
  revokeNodeCredential,
  setNodeDrainRequested,
  touchOperatorToken,
} from '@kino/database/repositories';
import { NotFoundError, UnauthorizedError } from '../http/errors.ts';
import { Envelope, Id, StringEnum } from '../schemas/common.ts';

export const NodeSchema = Type.Object({
  id: Type.String(),
  address: Type.String(),
  version: Type.String(),
  labels: Type.Record(Type.String(), Type.String()),
  /** The encoders of its ffmpeg that passed a test encode (issue 54); empty from nodes that predate it. */
  encoders: Type.Array(Type.String()),
  /** Its quality ffmpeg (SVT-AV1, libvmaf) works: AV1 renditions and quality scores run only on such nodes. */
  qualityFfmpeg: Type.Boolean(),
  /** The languages its speech engine transcribes (captions from speech, issue 57); empty: it has none. */
  transcribeLanguages: Type.Array(Type.String()),
  slots: Type.Integer(),
  slotsInUse: Type.Integer(),
  /** `draining` when the node drains itself (stopping) or an operator drained it. */
  state: StringEnum(['active', 'draining', 'gone']),
  drainRequestedAt: Type.Union([Type.String(), Type.Null()]),
  registeredAt: Type.String(),
  lastHeartbeatAt: Type.String(),
});

export function presentNode(node: EncodeNode, slotsInUse: number) {
  return {
    id: node.id,
    address: node.address,
    version: node.version,
    labels: node.labels,
    encoders: node.encoders,
    qualityFfmpeg: node.quality_ffmpeg,
    transcribeLanguages: node.transcribe_languages,
    slots: node.slots,
    slotsInUse,
    state: node.state === 'active' && node.drain_requested_at ? ('draining' as const) : node.state,
    drainRequestedAt: node.drain_requested_at?.toISOString() ?? null,
    registeredAt: node.registered_at.toISOString(),
    lastHeartbeatAt: node.last_heartbeat_at.toISOString(),
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Accepts the bearer token when it is OPERATOR_TOKEN (compared in constant time: the digests have
 * equal lengths) or an active operator token of the database (found by its hash, as API keys are);
 * 401 otherwise.
 */
async function checkOperator(request: FastifyRequest, db: Db, operatorToken: string | undefined): Promise<void> {
  const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!presented)
    throw new UnauthorizedError(
      'Missing operator token: send it as `Authorization: Bearer <token>` (kino admin operator-token create).',
    );
  if (operatorToken && timingSafeEqual(digest(presented), digest(operatorToken))) return;
  const stored = await findActiveOperatorToken(db, presented);
  if (!stored) throw new UnauthorizedError('Invalid operator token.');
  await touchOperatorToken(db, stored.id);
}

/** An encode no live node can run (its needs: a codec, a quality score, labels), and why. */
export const WaitingEncodeSchema = Type.Object({
  videoId: Type.String(),
  job: Type.String(),
  waitingFor: Type.String(),
  enqueuedAt: Type.String(),
});

const NodeParams = Type.Object({ nodeID: Id });

/** A node's credential after `revoke`: the node was dropped, and its certificate works no more. */
export const RevokedNodeSchema = Type.Object({
  id: Type.String(),
  /** The name it was enrolled with (`kino admin nodes enroll --name`). */
  name: Type.String(),
  /** Null: revoked before its token was traded. */
  enrolledAt: Type.Union([Type.String(), Type.Null()]),
  revokedAt: Type.String(),
});

export const operatorRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const config = { auth: 'none' as const };
  const hide = true;
  // This plugin's own hook: it runs for the routes below only (after the rate limits are counted).
  app.addHook('onRequest', async (request) => checkOperator(request, deps.db, deps.config.OPERATOR_TOKEN));

  app.get(
    '/operators/nodes',
    {
      config,
      schema: {
        hide,
        response: {
          200: Envelope(Type.Object({ nodes: Type.Array(NodeSchema), waiting: Type.Array(WaitingEncodeSchema) })),
        },
      },
    },
    async () => {
      const [nodes, waiting] = await Promise.all([listFarmNodes(deps.db), listWaitingEncodes(deps.db)]);
      return {
        body: {
          nodes,
          waiting: waiting.map((w) => ({
            videoId: w.videoId,
            job: w.job,
            waitingFor: w.waitingFor,
            enqueuedAt: w.enqueuedAt.toISOString(),
          })),
        },
      };
    },
  );

  const setDrain = (draining: boolean) => async (request: FastifyRequest<{ Params: { nodeID: string } }>) => ({
    body: await drainNode(deps.db, request.params.nodeID, draining),
  });
  const schema = { hide, params: NodeParams, response: { 200: Envelope(NodeSchema) } };
  app.post('/operators/nodes/:nodeID/drain', { config, schema }, setDrain(true));
  app.post('/operators/nodes/:nodeID/undrain', { config, schema }, setDrain(false));
  app.post(
    '/operators/nodes/:nodeID/revoke',
    { config, schema: { hide, params: NodeParams, response: { 200: Envelope(RevokedNodeSchema) } } },
    async (request) => ({ body: await revokeNode(deps.db, request.params.nodeID) }),
  );
};

/**
 * Revokes a node's credential (operators, the dashboard): the registry refuses its certificate from
 * its next call on, and the node is dropped now, its running encodes failing over as a lost node's
 * do. node_not_found for a node with no credential (one on the shared token: change NODE_TOKEN).
 */
export async function revokeNode(db: Db, nodeId: string) {
  const credential = await revokeNodeCredential(db, nodeId);
  if (!credential)
    throw new NotFoundError(
      'node_not_found',
      `Encode node ${nodeId} has no credential of this farm (kino admin nodes enroll makes them; a node on the shared NODE_TOKEN is cut off by changing the token).`,
    );
  return {
    id: credential.node_id,
    name: credential.name,
    enrolledAt: credential.enrolled_at?.toISOString() ?? null,
    revokedAt: credential.revoked_at!.toISOString(),
  };
}

/** The farm's nodes as operators see them (this interface and the dashboard's farm page). */
export async function listFarmNodes(db: Db) {
  return (await listEncodeNodesWithLoad(db)).map((node) => presentNode(node, node.used));
}

/** Drains (or undrains) a node for operators; node_not_found for a node the registry never knew. */
export async function drainNode(db: Db, nodeId: string, draining: boolean) {
  const node = await setNodeDrainRequested(db, nodeId, draining);
  if (!node) throw new NotFoundError('node_not_found', `Encode node ${nodeId} is not known to the registry.`);
  const used = (await listEncodeNodesWithLoad(db)).find((n) => n.id === node.id)?.used ?? 0;
  return presentNode(node, used);
}
