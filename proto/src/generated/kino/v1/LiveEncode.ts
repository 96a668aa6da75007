// Original file: kino.proto

import type { RenditionSpec as _kino_v1_RenditionSpec, RenditionSpec__Output as _kino_v1_RenditionSpec__Output } from '../../kino/v1/RenditionSpec.ts';
import type { Long } from '@grpc/proto-loader';

/**
 * A broadcast's ladder, one ffmpeg for every rung (docs/decisions/live.md): EVENT playlists of 6 s
 * fMP4 segments with EXT-X-PROGRAM-DATE-TIME. How many segments a broadcast makes is not known in
 * advance, so the node gets no URLs: each file it closes travels back on the Encode call's stream
 * (LiveFile) and the orchestrator stores it. `source` is the live probe (duration 0). The job ends
 * when the input does (the publisher is gone): its playlists end with EXT-X-ENDLIST, then `done`.
 */
export interface LiveEncode {
  'renditions'?: (_kino_v1_RenditionSpec)[];
  /**
   * Set (latency "low"): ffmpeg cuts parts of at most this, not segments; each file sent is a part
   * and the orchestrator groups them into segments. 0: each file is a whole segment.
   */
  'partSeconds'?: (number | string);
  /**
   * The number of the first file ffmpeg writes (`-start_number`: part-%05d or seg-%05d). 0 for a
   * broadcast's first node; a node taking a broadcast over (its node lost, the orchestrator
   * restarted) starts past every file stored, so no name is taken twice (live.md "Node takeover").
   */
  'firstFileNumber'?: (number);
  /**
   * The media time of the node's first frame (ffmpeg's `-output_ts_offset`): 0 for a broadcast's
   * first node; a node taking over starts where the stored recording ends, so the recording stays
   * one timeline (its frames' times never go back) across the gap.
   */
  'startSeconds'?: (number | string);
  /**
   * When ingest admitted the broadcast's publisher (ms since the epoch): the wall-clock time of the
   * broadcast's media time 0, which a publisher's clock starts from (docs/decisions/live.md, "The
   * program date-time"). Each file's program_date_time_ms is this plus the media time before it
   * (moved on by gaps). 0: ffmpeg's own times (its start's wall clock plus media time), which run
   * late by the seconds between the publish and the encoder's start.
   */
  'broadcastStartedAtMs'?: (number | string | Long);
}

/**
 * A broadcast's ladder, one ffmpeg for every rung (docs/decisions/live.md): EVENT playlists of 6 s
 * fMP4 segments with EXT-X-PROGRAM-DATE-TIME. How many segments a broadcast makes is not known in
 * advance, so the node gets no URLs: each file it closes travels back on the Encode call's stream
 * (LiveFile) and the orchestrator stores it. `source` is the live probe (duration 0). The job ends
 * when the input does (the publisher is gone): its playlists end with EXT-X-ENDLIST, then `done`.
 */
export interface LiveEncode__Output {
  'renditions': (_kino_v1_RenditionSpec__Output)[];
  /**
   * Set (latency "low"): ffmpeg cuts parts of at most this, not segments; each file sent is a part
   * and the orchestrator groups them into segments. 0: each file is a whole segment.
   */
  'partSeconds': (number);
  /**
   * The number of the first file ffmpeg writes (`-start_number`: part-%05d or seg-%05d). 0 for a
   * broadcast's first node; a node taking a broadcast over (its node lost, the orchestrator
   * restarted) starts past every file stored, so no name is taken twice (live.md "Node takeover").
   */
  'firstFileNumber': (number);
  /**
   * The media time of the node's first frame (ffmpeg's `-output_ts_offset`): 0 for a broadcast's
   * first node; a node taking over starts where the stored recording ends, so the recording stays
   * one timeline (its frames' times never go back) across the gap.
   */
  'startSeconds': (number);
  /**
   * When ingest admitted the broadcast's publisher (ms since the epoch): the wall-clock time of the
   * broadcast's media time 0, which a publisher's clock starts from (docs/decisions/live.md, "The
   * program date-time"). Each file's program_date_time_ms is this plus the media time before it
   * (moved on by gaps). 0: ffmpeg's own times (its start's wall clock plus media time), which run
   * late by the seconds between the publish and the encoder's start.
   */
  'broadcastStartedAtMs': (number);
}
