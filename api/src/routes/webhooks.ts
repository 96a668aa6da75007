// Webhook registration per environment (docs/decisions/api.md#webhooks): POST creates one (its URL's host must
// resolve to public addresses, docs/security.md#webhook-destinations) and shows its signing secret once;
// GET lists (never the secret); DELETE removes. Deliveries of events are the orchestrator's work
// (deliverWebhooks); the delivery log is read here, and a redelivery or a test event is sent from
// here, once, with the answer in the response.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteOptions } from '../deps.ts';
import { randomUUID } from 'node:crypto';
import { webhookDeliveryLogSize, webhookEvents, webhookTestEvent, type TestWebhookPayload, type WebhookEvent, type WebhookPayload } from '@kino/proto/contract';
import {
  createWebhook,
  deleteWebhook,
  findLiveWebhookInEnvironment,
  findWebhookDelivery,
  listWebhookDeliveries,
  listWebhooks,
} from '@kino/database/repositories';
import type { Webhook, WebhookDelivery } from '@kino/database';
import type { FastifyRequest } from 'fastify';
import { sendWebhookMessage } from '@kino/webhooks';
import { accessOf } from '../plugins/access.ts';
import { NotFoundError, ValidationError } from '../http/errors.ts';
import { resolveWebhookDestination, WebhookDestinationError, type RefusedDestination } from '@kino/webhooks';
import { EnvParams, Envelope, errorResponses, Id, StringEnum, WEBHOOK_URL_PATTERN, withExamples } from '../schemas/common.ts';

const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(StringEnum(webhookEvents)),
  createdAt: Type.String(),
});

/** The OpenAPI document's example of a webhook. */
const exampleWebhook: Static<typeof WebhookSchema> = {
  id: 'whk_Lm3Rq8Vt1Zx5Cb7N',
  url: 'https://app.example.com/hooks/kino',
  events: ['video.processing.completed', 'video.processing.failed'],
  createdAt: '2026-11-20T09:00:00.000Z',
};

const CreatedWebhookSchema = Type.Object({
  ...WebhookSchema.properties,
  secret: Type.String({ description: 'Standard Webhooks signing secret (whsec_...). Shown only here.' }),
});

const CreateBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    pattern: WEBHOOK_URL_PATTERN,
    description: 'An http(s) URL that receives POSTed events (no credentials in it).',
  }),
  events: Type.Optional(
    Type.Array(StringEnum(webhookEvents), { minItems: 1, uniqueItems: true, description: 'Default: every event.' }),
  ),
});

const WebhookParams = Type.Object({ ...EnvParams.properties, webhookID: Id });
const DeliveryParams = Type.Object({ ...WebhookParams.properties, deliveryID: Id });

const DeliverySchema = Type.Object({
  id: Type.String({ description: 'This attempt: what redeliver takes.' }),
  messageId: Type.String({ description: 'The Standard Webhooks webhook-id: the same on every attempt of the message, redeliveries included.' }),
  event: Type.String({ description: 'A video event, or webhook.test.' }),
  attempt: Type.Integer({ description: "1 for the message's first attempt to this webhook; retries and redeliveries count on." }),
  responseStatus: Type.Union([Type.Integer(), Type.Null()], { description: "The endpoint's HTTP status; null when none came." }),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed; null when the endpoint answered 2xx.' }),
  createdAt: Type.String(),
});

/** The OpenAPI document's example of a delivery. */
const exampleDelivery: Static<typeof DeliverySchema> = {
  id: 'whd_Qw4Er7Ty1Ui3Op5A',
  messageId: 'msg_2f1c9a7e5b3d4c8f9a0b1c2d3e4f5a6b',
  event: 'video.processing.completed',
  attempt: 2,
  responseStatus: 200,
  durationMs: 84,
  error: null,
  createdAt: '2026-11-27T09:00:05.000Z',
};

function presentDelivery(delivery: WebhookDelivery): Static<typeof DeliverySchema> {
  return {
    id: delivery.id,
    messageId: delivery.message_id,
    event: delivery.event,
    attempt: delivery.attempt,
    responseStatus: delivery.response_status,
    durationMs: delivery.duration_ms,
    error: delivery.error,
    createdAt: delivery.created_at.toISOString(),
  };
}

function presentWebhook(webhook: Webhook) {
  return { id: webhook.id, url: webhook.url, events: webhook.events as WebhookEvent[], createdAt: webhook.created_at.toISOString() };
}

/** The condition names of a refused destination (docs/security.md#webhook-destinations). */
const refusedDestinationCodes: Record<RefusedDestination, string> = {
  not_public: 'webhook_url_not_public',
  unresolvable: 'webhook_url_unresolvable',
};

/** Unless WEBHOOK_ALLOW_PRIVATE: the URL's host must resolve, to public addresses only. */
async function checkWebhookDestination(url: string, deps: RouteOptions['deps']): Promise<void> {
  if (deps.config.WEBHOOK_ALLOW_PRIVATE) return;
  try {
    await resolveWebhookDestination(url, deps.webhookResolver);
  } catch (error) {
    if (!(error instanceof WebhookDestinationError)) throw error;
    const message = `url: ${error.message}`;
    throw new ValidationError(refusedDestinationCodes[error.reason], message, [{ message, location: 'body.url', value: url }]);
  }
}

function checkWebhookUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.username || parsed.password) {
    const message = 'url must be an absolute http(s) URL without credentials';
    throw new ValidationError('invalid_url', message, [{ message, location: 'body.url', value: url }]);
  }
}

/** The live webhook the path names: 404 webhook_not_found otherwise. */
async function webhookOf(deps: RouteOptions['deps'], request: FastifyRequest, webhookId: string): Promise<Webhook> {
  const access = accessOf(request);
  const webhook = await findLiveWebhookInEnvironment(deps.db, { orgId: access.orgId, envId: access.environment!.id, id: webhookId });
  if (!webhook) throw new NotFoundError('webhook_not_found', `Webhook ${webhookId} does not exist in this environment.`);
  return webhook;
}

/** One attempt, now, from this process (no retry: the caller sees the answer and may try again). */
async function sendOnce(deps: RouteOptions['deps'], webhook: Webhook, messageId: string, payload: WebhookPayload) {
  const { delivery } = await sendWebhookMessage(
    { db: deps.db, logger: deps.logger, webhookDestinations: { allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE, resolve: deps.webhookResolver } },
    { hook: webhook, messageId, payload },
  );
  return { body: presentDelivery(delivery) };
}

const oneAttempt =
  'Sent once, at once, signed as every delivery; the answer is the attempt as the log holds it (a failed attempt is ' +
  'answered 200 too, with its responseStatus and error).';

export const webhookRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/environments/:envID/webhooks',
    {
      config: { validationCodes: { 'body.url': 'invalid_url', 'body.events': 'invalid_events' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook',
        operationId: 'createWebhook',
        description:
          "Kino POSTs the environment's events to the URL, signed by Standard Webhooks (webhook-id, webhook-timestamp, " +
          'webhook-signature) with the secret answered here once; a failed delivery is retried with backoff. The host must ' +
          'resolve to public addresses. Errors: 400 invalid_url, webhook_url_not_public, webhook_url_unresolvable.',
        params: EnvParams,
        body: withExamples(CreateBody, { url: 'https://app.example.com/hooks/kino', events: ['video.processing.completed', 'video.processing.failed'] }),
        response: {
          200: Envelope(CreatedWebhookSchema, { ...exampleWebhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      checkWebhookUrl(request.body.url);
      await checkWebhookDestination(request.body.url, deps);
      const webhook = await createWebhook(deps.db, {
        orgId: access.orgId,
        envId: access.environment!.id,
        url: request.body.url,
        events: request.body.events ?? webhookEvents,
      });
      request.log.info({ webhookId: webhook.id }, 'webhook registered');
      return { body: { ...presentWebhook(webhook), secret: webhook.secret } };
    },
  );

  app.get(
    '/:orgID/environments/:envID/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'List the webhooks of an environment',
        operationId: 'listWebhooks',
        description: 'Every webhook of the environment, oldest first, without its secret (shown only when it was registered).',
        params: EnvParams,
        response: { 200: Envelope(Type.Object({ webhooks: Type.Array(WebhookSchema) }), { webhooks: [exampleWebhook] }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const webhooks = await listWebhooks(deps.db, { orgId: access.orgId, envId: access.environment!.id });
      return { body: { webhooks: webhooks.map(presentWebhook) } };
    },
  );

  app.delete(
    '/:orgID/environments/:envID/webhooks/:webhookID',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Remove a webhook',
        operationId: 'deleteWebhook',
        description: 'No new event is sent to it. Errors: 404 webhook_not_found.',
        params: WebhookParams,
        response: {
          200: Envelope(Type.Object({ id: Type.String(), status: StringEnum(['deleted'] as const) }), { id: 'whk_Lm3Rq8Vt1Zx5Cb7N', status: 'deleted' }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const deleted = await deleteWebhook(deps.db, { orgId: access.orgId, envId: access.environment!.id, id: request.params.webhookID });
      if (!deleted) throw new NotFoundError('webhook_not_found', `Webhook ${request.params.webhookID} does not exist in this environment.`);
      request.log.info({ webhookId: deleted.id }, 'webhook removed');
      return { body: { id: deleted.id, status: 'deleted' as const } };
    },
  );

  app.get(
    '/:orgID/environments/:envID/webhooks/:webhookID/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: "A webhook's delivery log",
        operationId: 'listWebhookDeliveries',
        description:
          `The webhook's latest ${webhookDeliveryLogSize} delivery attempts, newest first: each retry and redelivery is its own ` +
          'entry, the message id shared. Errors: 404 webhook_not_found.',
        params: WebhookParams,
        response: {
          200: Envelope(Type.Object({ deliveries: Type.Array(DeliverySchema) }), { deliveries: [exampleDelivery] }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const webhook = await webhookOf(deps, request, request.params.webhookID);
      return { body: { deliveries: (await listWebhookDeliveries(deps.db, webhook.id)).map(presentDelivery) } };
    },
  );

  app.post(
    '/:orgID/environments/:envID/webhooks/:webhookID/deliveries/:deliveryID/redeliver',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a delivery again',
        operationId: 'redeliverWebhook',
        description:
          'Sends the message of a logged delivery again: the same body and the same webhook-id (receivers drop duplicates ' +
          `by it), a fresh webhook-timestamp and signature, the next attempt number. ${oneAttempt} Errors: 404 webhook_not_found, ` +
          'webhook_delivery_not_found.',
        params: DeliveryParams,
        response: { 200: Envelope(DeliverySchema, { ...exampleDelivery, attempt: 3 }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const webhook = await webhookOf(deps, request, request.params.webhookID);
      const delivery = await findWebhookDelivery(deps.db, { webhookId: webhook.id, id: request.params.deliveryID });
      if (!delivery) {
        throw new NotFoundError('webhook_delivery_not_found', `Delivery ${request.params.deliveryID} is not in the log of webhook ${webhook.id}.`);
      }
      request.log.info({ webhookId: webhook.id, deliveryId: delivery.id, messageId: delivery.message_id }, 'webhook redelivery');
      return sendOnce(deps, webhook, delivery.message_id, delivery.payload as unknown as WebhookPayload);
    },
  );

  app.post(
    '/:orgID/environments/:envID/webhooks/:webhookID/test',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a test event',
        operationId: 'testWebhook',
        description:
          `Sends a ${webhookTestEvent} event to this webhook, whatever events it subscribes to: videoId and status null, data ` +
          `{webhookId, message}. ${oneAttempt} Errors: 404 webhook_not_found.`,
        params: WebhookParams,
        response: { 200: Envelope(DeliverySchema, { ...exampleDelivery, event: webhookTestEvent, attempt: 1 }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const webhook = await webhookOf(deps, request, request.params.webhookID);
      const payload: TestWebhookPayload = {
        event: webhookTestEvent,
        videoId: null,
        status: null,
        timestamp: new Date().toISOString(),
        data: { webhookId: webhook.id, message: 'A test event from Kino: this endpoint receives and verifies webhooks.' },
      };
      request.log.info({ webhookId: webhook.id }, 'webhook test event');
      return sendOnce(deps, webhook, `msg_${randomUUID().replaceAll('-', '')}`, payload);
    },
  );
};
