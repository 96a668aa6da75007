// Original file: kino.proto

import type { Long } from '@grpc/proto-loader';

/**
 * One closed file of a broadcast, `<key>/<file>` (720p/init.mp4, 720p/seg-00003.m4s,
 * 720p/part-00012.m4s), in pieces of at most a MiB: `data` goes at `offset`, and `complete` marks the
 * last piece. Files come in the order they are made: a rendition's init before its first segment or
 * part, then its segments or parts in order. ffmpeg's playlists are not sent: the orchestrator
 * writes the playlists.
 */
export interface LiveFile {
  'name'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'offset'?: (number | string | Long);
  'complete'?: (boolean);
  /**
   * On the last piece of a segment or part (not of an init): what ffmpeg's playlist said of it, its
   * length and its first frame's wall-clock time (ms since the epoch), and whether it starts with a
   * keyframe (read from its first sample's flags). The orchestrator writes the playlist from these.
   */
  'durationSeconds'?: (number | string);
  'programDateTimeMs'?: (number | string | Long);
  'independent'?: (boolean);
  /**
   * The first file after a gap in the input (a publisher's reconnect): the playlist marks
   * EXT-X-DISCONTINUITY before it; program_date_time_ms is already moved on by the gap.
   */
  'afterGap'?: (boolean);
  /**
   * The rung's last file: ffmpeg's playlist that first listed it had ended (EXT-X-ENDLIST), so the
   * input has ended and no part follows it. The orchestrator writes the playlist naming it with no
   * preload hint: a hint of a part that will never come is a 404 to the player that fetches it.
   */
  'last'?: (boolean);
}

/**
 * One closed file of a broadcast, `<key>/<file>` (720p/init.mp4, 720p/seg-00003.m4s,
 * 720p/part-00012.m4s), in pieces of at most a MiB: `data` goes at `offset`, and `complete` marks the
 * last piece. Files come in the order they are made: a rendition's init before its first segment or
 * part, then its segments or parts in order. ffmpeg's playlists are not sent: the orchestrator
 * writes the playlists.
 */
export interface LiveFile__Output {
  'name': (string);
  'data': (Buffer);
  'offset': (number);
  'complete': (boolean);
  /**
   * On the last piece of a segment or part (not of an init): what ffmpeg's playlist said of it, its
   * length and its first frame's wall-clock time (ms since the epoch), and whether it starts with a
   * keyframe (read from its first sample's flags). The orchestrator writes the playlist from these.
   */
  'durationSeconds': (number);
  'programDateTimeMs': (number);
  'independent': (boolean);
  /**
   * The first file after a gap in the input (a publisher's reconnect): the playlist marks
   * EXT-X-DISCONTINUITY before it; program_date_time_ms is already moved on by the gap.
   */
  'afterGap': (boolean);
  /**
   * The rung's last file: ffmpeg's playlist that first listed it had ended (EXT-X-ENDLIST), so the
   * input has ended and no part follows it. The orchestrator writes the playlist naming it with no
   * preload hint: a hint of a part that will never come is a 404 to the player that fetches it.
   */
  'last': (boolean);
}
