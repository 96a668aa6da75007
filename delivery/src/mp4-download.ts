// MP4 downloads: one rendition as one file (`/{id}/720p.mp4`, `.../video-720p.mp4`), assembled on the
// fly from what is already stored, with no second encode and no extra object.
//
// A rendition is a fragmented MP4 cut in pieces: the init segment (ftyp + moov, whose mvex says
// "fragments follow") and media segments that are moof/mdat pairs with their own decode times. Laid
// end to end they are a valid fragmented MP4 file. The one thing such a file lacks is its length:
// the movie header says 0, since no samples sit in moov. ffprobe and ffmpeg find the length by
// walking the fragments, but players and file managers that read the header alone show none, so
// the init is given a `mehd` box (movie extends header, ISO/IEC 14496-12 §8.8.2: the duration of
// the whole fragmented movie) in memory. moov holds no sample offsets in a fragmented file (the
// fragments address their data relative to their own moof), so growing moov by 16 bytes moves
// nothing that is referenced.
//
// The file's layout (each part's offset and size) comes from the rendition's playlist (segment keys
// and durations) and one storage HEAD per segment, and is kept in memory: a ready video's objects
// never change. Bytes are then read part by part through the node's cache, so a Range request
// (download managers, resumed downloads) touches only the segments it covers. A video still being
// made (just in time) has no download until its ladder is complete (routes/downloads.ts): its
// playlists are the planned ones, and its segments are not all stored.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import pLimit from 'p-limit';
import type { Storage } from '@kino/infra';
import { objectKeys } from '@kino/proto/contract';
import { readMp4Boxes } from '@kino/ffmpeg';
import { DeliveryError } from './errors.ts';
import type { ObjectCache } from './object-cache.ts';
import { resolveKey } from './playlist.ts';
import { mediaKeyOf } from './paths.ts';
import type { PlayableRendition, PlayableVideo } from './video-catalog.ts';
import { drained } from './drained.ts';

/** What a layout needs of the video: its id, and a clip's media (whose objects its segments are). */
type MediaOf = Pick<PlayableVideo, 'id' | 'clipMedia'>;

export interface Mp4Part {
  /** Offset of the part in the file. */
  offset: number;
  size: number;
  /** The init segment, patched; its bytes are held here. */
  data?: Buffer;
  /** A media segment: its storage key and index. */
  key?: string;
  segmentIndex?: number;
}

export interface Mp4Layout {
  parts: Mp4Part[];
  size: number;
  etag: string;
  durationSeconds: number;
}

const maxLayouts = 5_000;
const headConcurrency = 8;

export class Mp4Downloads {
  private readonly layouts = new Map<string, Promise<Mp4Layout>>();

  private readonly cache: Pick<ObjectCache, 'get'>;
  private readonly storage: Pick<Storage, 'head'>;
  constructor(cache: Pick<ObjectCache, 'get'>, storage: Pick<Storage, 'head'>) {
    this.cache = cache;
    this.storage = storage;
  }

  /** The layout of a rendition's MP4; computed once per rendition (concurrent callers share it). */
  layout(video: MediaOf, rendition: PlayableRendition): Promise<Mp4Layout> {
    const memoKey = `${video.id}|${rendition.key}`;
    let pending = this.layouts.get(memoKey);
    if (!pending) {
      pending = this.build(video, rendition);
      // A failure (storage down) is not remembered.
      pending.catch(() => this.layouts.delete(memoKey));
      if (this.layouts.size >= maxLayouts) this.layouts.clear();
      this.layouts.set(memoKey, pending);
    }
    return pending;
  }

  /** The bytes of a media part, from the cache. */
  async part(part: Mp4Part): Promise<{ data?: Buffer; path: string }> {
    const object = await this.cache.get(part.key!);
    if (!object || object.size !== part.size) throw new Error(`segment ${part.key} is missing or changed size`);
    return object;
  }

  private async build(video: MediaOf, rendition: PlayableRendition): Promise<Mp4Layout> {
    const videoId = video.id;
    const playlistKey = objectKeys.renditionPlaylist(videoId, rendition.key);
    const [playlistObject, initObject] = await Promise.all([
      this.cache.get(playlistKey),
      this.cache.get(mediaKeyOf(video, { type: 'init', quality: rendition.key })),
    ]);
    if (!playlistObject || !initObject) throw missing(videoId, rendition.key);
    const playlist = (playlistObject.data ?? (await readFile(playlistObject.path))).toString('utf8');
    const parsed = parseMediaPlaylist(playlist, playlistKey);
    const durationSeconds = parsed.durationSeconds;
    // A clip's playlist names its own segments (seg-00000.m4s on); they are stored as its media video's.
    const segments = video.clipMedia
      ? parsed.segments.map((_, index) => mediaKeyOf(video, { type: 'segment', quality: rendition.key, index }))
      : parsed.segments;
    const init = withMovieDuration(initObject.data ?? (await readFile(initObject.path)), durationSeconds);

    const limit = pLimit(headConcurrency);
    const sizes = await Promise.all(
      segments.map((key) =>
        limit(async () => {
          const head = await this.storage.head(key);
          if (!head) throw missing(videoId, rendition.key);
          return head;
        }),
      ),
    );
    const hash = createHash('sha256').update(init);
    const parts: Mp4Part[] = [{ offset: 0, size: init.length, data: init }];
    let offset = init.length;
    segments.forEach((key, segmentIndex) => {
      const { size, etag } = sizes[segmentIndex]!;
      parts.push({ offset, size, key, segmentIndex });
      offset += size;
      hash.update(`${key}|${size}|${etag ?? ''}\n`);
    });
    return { parts, size: offset, etag: `"mp4-${hash.digest('base64url').slice(0, 32)}"`, durationSeconds };
  }
}

function missing(videoId: string, quality: string): DeliveryError {
  return new DeliveryError(404, 'not_found', `Video ${videoId} has no complete ${quality} rendition to download.`);
}

/** The media segments' storage keys (in order) and the total of their durations. */
export function parseMediaPlaylist(text: string, playlistKey: string): { segments: string[]; durationSeconds: number } {
  const segments: string[] = [];
  let durationSeconds = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('#EXTINF:')) durationSeconds += Number.parseFloat(line.slice('#EXTINF:'.length));
    else if (line !== '' && !line.startsWith('#')) {
      const key = resolveKey(playlistKey, line);
      if (key) segments.push(key);
    }
  }
  return { segments, durationSeconds };
}

// ---- the init segment's duration -------------------------------------------------------------

/**
 * The init segment with its movie's full duration in `moov/mvex/mehd` (added when absent, set when
 * present), in the timescale of `moov/mvhd`. An init that is not a fragmented MP4 (no moov, mvhd or
 * mvex) cannot be a download's head: that is an error, not a file to send.
 */
export function withMovieDuration(init: Buffer, seconds: number): Buffer {
  const moov = readMp4Boxes(init, 0, init.length).find((b) => b.type === 'moov');
  if (!moov || moov.header !== 8) throw new Error('init segment has no moov box');
  const children = readMp4Boxes(init, moov.offset + 8, moov.offset + moov.size);
  const mvhd = children.find((b) => b.type === 'mvhd');
  const mvex = children.find((b) => b.type === 'mvex');
  if (!mvhd || !mvex || mvex.header !== 8) throw new Error('init segment is not fragmented (no mvhd or mvex in moov)');
  const mvhdVersion = init.readUInt8(mvhd.offset + 8);
  const timescale = init.readUInt32BE(mvhd.offset + 8 + 4 + (mvhdVersion === 1 ? 16 : 8));
  const duration = Math.round(seconds * timescale);
  const mehd = readMp4Boxes(init, mvex.offset + 8, mvex.offset + mvex.size).find((b) => b.type === 'mehd');
  if (mehd) {
    const out = Buffer.from(init);
    if (out.readUInt8(mehd.offset + 8) === 1) out.writeBigUInt64BE(BigInt(duration), mehd.offset + 12);
    else out.writeUInt32BE(Math.min(duration, 0xffffffff), mehd.offset + 12);
    return out;
  }
  const wide = duration > 0xffffffff;
  const box = Buffer.alloc(wide ? 20 : 16);
  box.writeUInt32BE(box.length, 0);
  box.write('mehd', 4, 'latin1');
  box.writeUInt32BE(wide ? 0x01000000 : 0, 8); // version and flags
  if (wide) box.writeBigUInt64BE(BigInt(duration), 12);
  else box.writeUInt32BE(duration, 12);
  // mehd first in mvex (the order 14496-12 gives), mvex and moov grow by its size.
  const insertAt = mvex.offset + 8;
  const out = Buffer.concat([init.subarray(0, insertAt), box, init.subarray(insertAt)]);
  out.writeUInt32BE(mvex.size + box.length, mvex.offset);
  out.writeUInt32BE(moov.size + box.length, moov.offset);
  return out;
}

// ---- sending ---------------------------------------------------------------------------------

/**
 * Writes bytes [start, end] of the file to `res` (headers already written), part by part, calling
 * `onSegment` (and waiting for it) before the first byte of each media segment whose first byte is
 * in the range.
 */
export async function writeMp4Range(
  downloads: Mp4Downloads,
  layout: Mp4Layout,
  start: number,
  end: number,
  res: ServerResponse,
  onSegment: (part: Mp4Part, bytes: number) => Promise<void>,
): Promise<void> {
  for (const part of layout.parts) {
    const partEnd = part.offset + part.size - 1;
    if (partEnd < start || part.offset > end) continue;
    if (res.destroyed) return;
    const from = Math.max(start, part.offset) - part.offset;
    const to = Math.min(end, partEnd) - part.offset;
    if (part.data) {
      await write(res, part.data.subarray(from, to + 1));
      continue;
    }
    const object = await downloads.part(part);
    if (from === 0) await onSegment(part, to + 1);
    if (object.data) {
      await write(res, object.data.subarray(from, to + 1));
      continue;
    }
    for await (const chunk of createReadStream(object.path, { start: from, end: to })) {
      if (res.destroyed) return;
      await write(res, chunk as Buffer);
    }
  }
  res.end();
}

/** One write, waiting for the socket to drain (or close) when its buffer is full. */
async function write(res: ServerResponse, chunk: Buffer): Promise<void> {
  if (!res.write(chunk)) await drained(res);
}
