// @kino/webhooks: what sending a webhook takes, for the API (a test event) and the orchestrator
// (every video event): the signature, the check that a destination is public, and the one sender.
export { signWebhook, webhookSecretKey, type WebhookHeaders } from './signature.ts';
export {
  isPublicAddress,
  pinnedLookup,
  resolvePublicAddresses,
  resolveWebhookDestination,
  systemResolver,
  WebhookDestinationError,
  type HostResolver,
  type RefusedDestination,
  type WebhookDestinationPolicy,
} from './destinations.ts';
export {
  sendWebhookMessage,
  type WebhookAttempt,
  type WebhookAttemptResult,
  type WebhookFetch,
  type WebhookSenderDeps,
} from './sender.ts';
