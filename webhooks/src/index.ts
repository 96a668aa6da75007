// @kino/webhooks: what sending a webhook takes, for the API (a test event) and the orchestrator
// (every video event): the signature, the check that a destination is public, and the one sender.
export {
  pinnedLookup,
  resolveWebhookDestination,
  WebhookDestinationError,
  type HostResolver,
  type RefusedDestination,
  type WebhookDestinationPolicy,
} from './destinations.ts';
export { sendWebhookMessage, type WebhookFetch } from './sender.ts';
