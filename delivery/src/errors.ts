// The one error type of the delivery node: an HTTP status and the spec's envelope
// `{title, status, detail, errors?, code}`.
import type { OutgoingHttpHeaders } from 'node:http';
import { errorEnvelope, type FieldError } from '@kino/proto/contract';

export class DeliveryError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly headers: OutgoingHttpHeaders;
  constructor(
    status: number,
    code: string,
    detail: string,
    errors?: FieldError[],
    /** Headers the answer carries besides the envelope's: Allow on a 405, Retry-After on a 503 worth retrying. */
    headers: OutgoingHttpHeaders = {},
  ) {
    super(detail);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.errors = errors;
    this.headers = headers;
    this.name = 'DeliveryError';
  }

  body(): string {
    return JSON.stringify(errorEnvelope(this.status, this.code, this.detail, this.errors));
  }
}

export const videoNotFound = (videoId: string) =>
  new DeliveryError(
    404,
    'video_not_found',
    `No playable video ${videoId}: it does not exist, is deleted or is not ready.`,
  );

/** A video not in the node's memory while PostgreSQL is restarting or gone: nothing to look it up in. */
export const databaseUnavailable = () =>
  new DeliveryError(
    503,
    'service_unavailable',
    'The delivery node cannot look the video up right now (database unavailable); try again shortly.',
  );

/** An object not in the node's cache while storage is restarting or gone: nothing to read it from. */
export const storageUnavailable = () =>
  new DeliveryError(
    503,
    'service_unavailable',
    'The delivery node cannot read this file right now (storage unavailable); try again shortly.',
  );

/** How long a player is told to wait before asking again for a segment still being made. */
const segmentRetryAfterSeconds = 5;

/**
 * A segment still being made (just in time) when its request's wait ended
 * (DELIVERY_SEGMENT_WAIT_SECONDS): the farm is busy; the player asks again.
 */
export const segmentStillBeingMade = (videoId: string, what: string) =>
  new DeliveryError(
    503,
    'service_unavailable',
    `${what} of video ${videoId} is still being made; try again shortly.`,
    undefined,
    {
      'Retry-After': String(segmentRetryAfterSeconds),
    },
  );

/**
 * The client closed the connection while its request waited (a segment being made). Nobody reads
 * this answer; its status, nginx's 499 for the same, keeps such requests apart in the request metrics.
 */
export const clientClosedRequest = () =>
  new DeliveryError(499, 'client_closed_request', 'The client closed the connection before the answer.');

/**
 * A download (an MP4 or audio.m4a) of a video whose ladder was still not complete at the deadline:
 * an MP4 is laid out from every segment before its first byte, and audio.m4a is made with the last.
 */
export const downloadNotReady = (videoId: string, file: string) =>
  new DeliveryError(
    503,
    'service_unavailable',
    `Video ${videoId} is still being made (its segments are made as they are watched): ${file} can be downloaded once all of them are; play it meanwhile, or try again shortly.`,
    undefined,
    {
      'Retry-After': String(segmentRetryAfterSeconds),
    },
  );
