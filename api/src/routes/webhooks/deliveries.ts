// A webhook's deliveries (docs/decisions/api.md#webhooks): the delivery log is read here, and a
// redelivery or a test event is sent from here, once, with the answer in the response.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  webhookDeliveryLogSize,
  webhookTestEvent,
  type TestWebhookPayload,
  type WebhookPayload,
} from '@kino/proto/contract';
import { findLiveWebhookInEnvironment, findWebhookDelivery, listWebhookDeliveries } from '@kino/database/repositories';
import type { Webhook, WebhookDelivery } from '@kino/database';
import { sendWebhookMessage } from '@kino/webhooks';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { NotFoundError } from '../../http/errors.ts';
import { Envelope, errorResponses, Id } from '../../schemas/common.ts';
import { WebhookParams } from './registration.ts';

const DeliveryParams = Type.Object({ ...WebhookParams.properties, deliveryID: Id });

const DeliverySchema = Type.Object({
  id: Type.String({ description: 'This attempt: what redeliver takes.' }),
  messageId: Type.String({
    description: 'The Standard Webhooks webhook-id: the same on every attempt of the message, redeliveries included.',
  }),
  event: Type.String({ description: 'A video event, or webhook.test.' }),
  attempt: Type.Integer({
    description: "1 for the message's first attempt to this webhook; retries and redeliveries count on.",
  }),
  responseStatus: Type.Union([Type.Integer(), Type.Null()], {
    description: "The endpoint's HTTP status; null when none came.",
  }),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the attempt failed; null when the endpoint answered 2xx.',
  }),
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

/** The live webhook the path names: 404 webhook_not_found otherwise. */
async function webhookOf(deps: RouteOptions['deps'], request: FastifyRequest, webhookId: string): Promise<Webhook> {
  const access = accessOf(request);
  const webhook = await findLiveWebhookInEnvironment(deps.db, {
    orgId: access.orgId,
    envId: access.environment!.id,
    id: webhookId,
  });
  if (!webhook)
    throw new NotFoundError('webhook_not_found', `Webhook ${webhookId} does not exist in this environment.`);
  return webhook;
}

/** One attempt, now, from this process (no retry: the caller sees the answer and may try again). */
async function sendOnce(deps: RouteOptions['deps'], webhook: Webhook, messageId: string, payload: WebhookPayload) {
  const { delivery } = await sendWebhookMessage(
    {
      db: deps.db,
      logger: deps.logger,
      webhookDestinations: { allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE, resolve: deps.webhookResolver },
    },
    { hook: webhook, messageId, payload },
  );
  return { body: presentDelivery(delivery) };
}

const oneAttempt =
  'Sent once, at once, signed as every delivery; the answer is the attempt as the log holds it (a failed attempt is ' +
  'answered 200 too, with its responseStatus and error).';

export const webhookDeliveryRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
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
        throw new NotFoundError(
          'webhook_delivery_not_found',
          `Delivery ${request.params.deliveryID} is not in the log of webhook ${webhook.id}.`,
        );
      }
      request.log.info(
        { webhookId: webhook.id, deliveryId: delivery.id, messageId: delivery.message_id },
        'webhook redelivery',
      );
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
        response: {
          200: Envelope(DeliverySchema, { ...exampleDelivery, event: webhookTestEvent, attempt: 1 }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const webhook = await webhookOf(deps, request, request.params.webhookID);
      const payload: TestWebhookPayload = {
        event: webhookTestEvent,
        videoId: null,
        status: null,
        timestamp: new Date().toISOString(),
        data: {
          webhookId: webhook.id,
          message: 'A test event from Kino: this endpoint receives and verifies webhooks.',
        },
      };
      request.log.info({ webhookId: webhook.id }, 'webhook test event');
      return sendOnce(deps, webhook, `msg_${randomUUID().replaceAll('-', '')}`, payload);
    },
  );
};
