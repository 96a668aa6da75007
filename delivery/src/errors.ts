// The one error type of the delivery node: an HTTP status and the spec's envelope
// `{title, status, detail, errors?, code}`.
import type { OutgoingHttpHeaders } from 'node:http';
import { errorEnvelope, type FieldError } from '@kino/proto/contract';

export class DeliveryError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    /** Headers the answer carries besides the envelope's: Allow on a 405, Retry-After on a 503 worth retrying. */
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(detail);
    this.name = 'DeliveryError';
  }

  body(): string {
    return JSON.stringify(errorEnvelope(this.status, this.code, this.detail, this.errors));
  }
}

export const videoNotFound = (videoId: string) =>
  new DeliveryError(404, 'video_not_found', `No playable video ${videoId}: it does not exist, is deleted or is not ready.`);

/** A video not in the node's memory while PostgreSQL is restarting or gone: nothing to look it up in. */
export const databaseUnavailable = () =>
  new DeliveryError(503, 'service_unavailable', 'The delivery node cannot look the video up right now (database unavailable); try again shortly.');

/** An object not in the node's cache while storage is restarting or gone: nothing to read it from. */
export const storageUnavailable = () =>
  new DeliveryError(503, 'service_unavailable', 'The delivery node cannot read this file right now (storage unavailable); try again shortly.');
