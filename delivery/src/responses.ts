// How the delivery node answers. `sendBody` is the one writer of every file and page it serves
// (segments, playlists, downloads, thumbnails, captions, storyboards, the player's pages): the hot
// path, so it allocates little and reuses header lists. `sendJson` answers the few JSON replies
// (health, oEmbed) and every error, in the envelope.
import { createReadStream } from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { StorageUnavailableError } from '@kino/infra';
import type { SegmentDelivery } from '@kino/analytics';
import { writeFill, type ObjectFill } from './fill.ts';
import { contentEtag, type CachedObject } from './object-cache.ts';
import { PacedBodyWriter } from './paced-body-writer.ts';
import type { Family } from './paths.ts';
import { playerPageCsp } from './player-page.ts';
import { parseRange } from './range.ts';

// CORS exactly as the spec's Authentication part says, on every response (preflights included),
// plus the headers a player needs to read from cross-origin responses.
export const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  // POST: a player's beacons (routes/beacons.ts).
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Range, Content-Type',
  'Access-Control-Max-Age': '3600',
  'Access-Control-Expose-Headers': 'Content-Length, Content-Range, ETag',
} as const;

// Segments and init segments never change once a video is ready; playlists are short-lived so a
// deleted video stops being offered soon. A master playlist is revalidated on every load (its ETag
// makes that a 304): it names the caption tracks, which change under the same URL, and a player
// made after a track was added must see it. Anything a token opened is `private` (no shared cache).
export const cacheControl = {
  media: { public: 'public, max-age=31536000, immutable', private: 'private, max-age=31536000, immutable' },
  master: { public: 'public, no-cache', private: 'private, no-cache' },
  playlist: { public: 'public, max-age=10', private: 'private, max-age=10' },
  /** A broadcast's media playlist grows by a segment every few seconds: a cache keeps it a second at most. */
  livePlaylist: { public: 'public, max-age=1', private: 'private, max-age=1' },
  thumbnail: { public: 'public, max-age=3600', private: 'private, max-age=3600' },
} as const;

/** Whether a token opened the file (`private`: no shared cache may keep it) or anyone may fetch it. */
export type Access = 'public' | 'private';

export interface Body {
  contentType: string;
  cacheControl: string;
  etag: string;
  size: number;
  data?: Buffer;
  path?: string;
  /** A cache miss still arriving from storage: the bytes are streamed from it as they come. */
  fill?: ObjectFill;
  /**
   * Set for media segments: the segment log's row (its `bytes` filled in when the body is sent) and
   * the path family (metrics). Made for this request alone, so sendBody completes it in place.
   */
  segment?: { delivery: SegmentDelivery; family: Family };
  /** A body assembled from several objects (an MP4 download) writes its bytes [start, end] itself. */
  write?: (start: number, end: number, res: ServerResponse) => Promise<void>;
  contentDisposition?: string;
  /** Pages only: their Content-Security-Policy. */
  contentSecurityPolicy?: string;
}

/** A segment served: its row in the segment log and the metrics' counters; its bytes go out once the row is written. */
export type RecordSegment = (delivery: SegmentDelivery, family: Family) => Promise<void>;

const diskReadBytes = 512 * 1024;
/**
 * Bodies from memory (cached segments, playlists) leave at most 8 MB (four 720p segments) per turn
 * of the event loop, so the loop comes back to accept new connections every few milliseconds
 * however busy it is (paced-body-writer.ts). One for the process: the loop it paces is the process's.
 */
const memoryBodies = new PacedBodyWriter(8 * 1024 * 1024);

/** An object of the cache as the part of a body it makes. */
export function objectBody(object: CachedObject): Pick<Body, 'etag' | 'size' | 'data' | 'path' | 'fill'> {
  return { etag: object.etag, size: object.size, data: object.data, path: object.path, fill: object.fill };
}

/** An HTML page (player-page.ts) as a body, with the pages' Content-Security-Policy. */
export function pageBody(data: Buffer): Omit<Body, 'cacheControl'> {
  return {
    data,
    etag: contentEtag(data),
    size: data.length,
    contentType: 'text/html; charset=utf-8',
    contentSecurityPolicy: playerPageCsp,
  };
}

/** Whether an If-None-Match header names this ETag (weak or strong, or `*`). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

// The headers of a 200 or 206 answer that depend only on its type and cache policy, as writeHead's
// flat list, made once per pair (a handful: both come from the constants above) rather than spread
// into a new object three times a request on the segment path.
const constantHeaders = new Map<string, readonly string[]>();
function constantHeadersOf(contentType: string, cacheControl: string): readonly string[] {
  const key = `${contentType}\n${cacheControl}`;
  let headers = constantHeaders.get(key);
  if (!headers) {
    headers = [
      ...Object.entries(corsHeaders).flat(),
      'Cache-Control',
      cacheControl,
      'Content-Type',
      contentType,
      'Accept-Ranges',
      'bytes',
    ];
    constantHeaders.set(key, headers);
  }
  return headers;
}

/** Conditional requests, ranges, HEAD, and the segment log row, for any body. */
export async function sendBody(
  recordSegment: RecordSegment,
  req: IncomingMessage,
  res: ServerResponse,
  body: Body,
  /** A page that explains an error (the embed page's 404) is sent whole with this status. */
  errorStatus?: number,
): Promise<void> {
  const ifNoneMatch = errorStatus ? undefined : req.headers['if-none-match'];
  if (ifNoneMatch && etagMatches(ifNoneMatch, body.etag)) {
    res.writeHead(304, { ...corsHeaders, 'Cache-Control': body.cacheControl, ETag: body.etag });
    res.end();
    return;
  }
  const ifRange = req.headers['if-range'];
  const range =
    errorStatus || (ifRange && ifRange !== body.etag)
      ? { type: 'full' as const }
      : parseRange(req.headers.range, body.size);
  if (range.type === 'unsatisfiable') {
    res.writeHead(416, {
      ...corsHeaders,
      'Content-Range': `bytes */${body.size}`,
      'Cache-Control': 'no-store',
      'Content-Length': '0',
    });
    res.end();
    return;
  }
  const start = range.type === 'partial' ? range.start : 0;
  const end = range.type === 'partial' ? range.end : body.size - 1;
  const length = body.size === 0 ? 0 : end - start + 1;
  const headers = [
    ...constantHeadersOf(body.contentType, body.cacheControl),
    'ETag',
    body.etag,
    'Content-Length',
    String(length),
  ];
  if (body.contentDisposition) headers.push('Content-Disposition', body.contentDisposition);
  if (body.contentSecurityPolicy) headers.push('Content-Security-Policy', body.contentSecurityPolicy);
  if (range.type === 'partial') headers.push('Content-Range', `bytes ${start}-${end}/${body.size}`);
  const status = errorStatus ?? (range.type === 'partial' ? 206 : 200);
  if (req.method === 'HEAD') {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  // A miss still arriving: nothing is sent (nor logged) before its first byte asked for is here, so a
  // GET failing before then is a 503 in the envelope rather than headers and no body.
  if (body.fill && length > 0) {
    await body.fill.arrived(start).catch((error: unknown) => {
      throw new StorageUnavailableError(error);
    });
  }
  // A segment counts once per fetch: whole, or the range that starts it (not resumptions).
  if (body.segment && start === 0) {
    body.segment.delivery.bytes = length;
    await recordSegment(body.segment.delivery, body.segment.family);
  }
  res.writeHead(status, headers);
  if (body.write) {
    await body.write(start, end, res);
    return;
  }
  if (body.fill && length > 0) {
    await writeFill(body.fill, start, end, res);
    return;
  }
  if (body.data) {
    memoryBodies.end(res, range.type === 'partial' ? body.data.subarray(start, end + 1) : body.data);
    return;
  }
  if (length === 0 || !body.path) {
    res.end();
    return;
  }
  // Large reads, as nginx's `output_buffers 1m` advises for big static files: a 2 MB segment is a few
  // socket writes rather than 32 of the default 64 KiB.
  const stream = createReadStream(body.path, { start, end, highWaterMark: diskReadBytes });
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

export function sendJson(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  value: unknown,
  extra: OutgoingHttpHeaders = {},
): void {
  const data = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
  res.writeHead(status, {
    ...corsHeaders,
    ...extra,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': String(data.length),
  });
  res.end(req.method === 'HEAD' ? undefined : data);
}
