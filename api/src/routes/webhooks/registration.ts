// Webhook registration per environment (docs/decisions/api.md#webhooks): POST creates one (its URL's host must
// resolve to public addresses, docs/security.md#webhook-destinations) and shows its signing secret once;
// GET lists (never the secret); DELETE removes. Deliveries of events are the orchestrator's work
// (deliverWebhooks); their log, redeliveries and test events are deliveries.ts'.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { webhookEvents, type WebhookEvent } from '@kino/proto/contract';
import { createWebhook, deleteWebhook, listWebhooks } from '@kino/database/repositories';
import type { Webhook } from '@kino/database';
import { resolveWebhookDestination, WebhookDestinationError, type RefusedDestination } from '@kino/webhooks';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import {
  EnvParams,
  Envelope,
  errorResponses,
  Id,
  StringEnum,
  WEBHOOK_URL_PATTERN,
  withExamples,
} from '../../schemas/common.ts';

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

export const WebhookParams = Type.Object({ ...EnvParams.properties, webhookID: Id });

function presentWebhook(webhook: Webhook) {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events as WebhookEvent[],
    createdAt: webhook.created_at.toISOString(),
  };
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
    throw new ValidationError(refusedDestinationCodes[error.reason], message, [
      { message, location: 'body.url', value: url },
    ]);
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

export const webhookRegistrationRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
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
        body: withExamples(CreateBody, {
          url: 'https://app.example.com/hooks/kino',
          events: ['video.processing.completed', 'video.processing.failed'],
        }),
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
        description:
          'Every webhook of the environment, oldest first, without its secret (shown only when it was registered).',
        params: EnvParams,
        response: {
          200: Envelope(Type.Object({ webhooks: Type.Array(WebhookSchema) }), { webhooks: [exampleWebhook] }),
          ...errorResponses(404),
        },
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
          200: Envelope(Type.Object({ id: Type.String(), status: StringEnum(['deleted'] as const) }), {
            id: 'whk_Lm3Rq8Vt1Zx5Cb7N',
            status: 'deleted',
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const deleted = await deleteWebhook(deps.db, {
        orgId: access.orgId,
        envId: access.environment!.id,
        id: request.params.webhookID,
      });
      if (!deleted)
        throw new NotFoundError(
          'webhook_not_found',
          `Webhook ${request.params.webhookID} does not exist in this environment.`,
        );
      request.log.info({ webhookId: deleted.id }, 'webhook removed');
      return { body: { id: deleted.id, status: 'deleted' as const } };
    },
  );
};
