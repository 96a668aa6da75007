// Original file: kino.proto

import type { Long } from '@grpc/proto-loader';

/**
 * One closed file of a broadcast, `<key>/<file>` (720p/init.mp4, 720p/seg-00003.m4s,
 * 720p/playlist.m3u8), in pieces of at most a MiB: `data` goes at `offset`, and `complete` marks the
 * last piece. Files come in the order they are to be stored: a rendition's init before its first
 * segment, every segment before the playlist that names it.
 */
export interface LiveFile {
  'name'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'offset'?: (number | string | Long);
  'complete'?: (boolean);
}

/**
 * One closed file of a broadcast, `<key>/<file>` (720p/init.mp4, 720p/seg-00003.m4s,
 * 720p/playlist.m3u8), in pieces of at most a MiB: `data` goes at `offset`, and `complete` marks the
 * last piece. Files come in the order they are to be stored: a rendition's init before its first
 * segment, every segment before the playlist that names it.
 */
export interface LiveFile__Output {
  'name': (string);
  'data': (Buffer);
  'offset': (number);
  'complete': (boolean);
}
