// Original file: kino.proto

import type { ProbeResult as _kino_v1_ProbeResult, ProbeResult__Output as _kino_v1_ProbeResult__Output } from '../../kino/v1/ProbeResult.ts';
import type { WholeEncode as _kino_v1_WholeEncode, WholeEncode__Output as _kino_v1_WholeEncode__Output } from '../../kino/v1/WholeEncode.ts';
import type { ChunkEncode as _kino_v1_ChunkEncode, ChunkEncode__Output as _kino_v1_ChunkEncode__Output } from '../../kino/v1/ChunkEncode.ts';
import type { AudioTrackEncode as _kino_v1_AudioTrackEncode, AudioTrackEncode__Output as _kino_v1_AudioTrackEncode__Output } from '../../kino/v1/AudioTrackEncode.ts';
import type { Watermark as _kino_v1_Watermark, Watermark__Output as _kino_v1_Watermark__Output } from '../../kino/v1/Watermark.ts';
import type { LiveEncode as _kino_v1_LiveEncode, LiveEncode__Output as _kino_v1_LiveEncode__Output } from '../../kino/v1/LiveEncode.ts';

/**
 * One encode of one video: the whole video, one chunk of it, or its audio track, told apart by
 * `job`. Every kind reads the source from input_url and knows it from `source` (its probe).
 */
export interface EncodeRequest {
  'jobId'?: (string);
  'videoId'?: (string);
  'inputUrl'?: (string);
  'source'?: (_kino_v1_ProbeResult | null);
  'whole'?: (_kino_v1_WholeEncode | null);
  'chunk'?: (_kino_v1_ChunkEncode | null);
  'audioTrack'?: (_kino_v1_AudioTrackEncode | null);
  /**
   * Someone waits for this encode (a viewer asked for a segment, or a video's first segments): it
   * may take the node's demand slot (one beside its slots) and its ffmpeg runs ahead of the node's
   * other encodes, which run niced (docs/decisions/just-in-time.md).
   */
  'onDemand'?: (boolean);
  /**
   * Set: an image laid over every picture rendition of the request (the video's watermark,
   * @kino/proto/contract watermarks.ts); unset: none. Audio-only renditions have no picture.
   */
  'watermark'?: (_kino_v1_Watermark | null);
  /**
   * A broadcast (issue 56): input_url is the ingest's RTMP relay of the publisher's stream, read
   * for as long as it is published; the files come back on the call's own stream (EncodeEvent.file).
   */
  'live'?: (_kino_v1_LiveEncode | null);
  'job'?: "whole"|"chunk"|"audioTrack"|"live";
}

/**
 * One encode of one video: the whole video, one chunk of it, or its audio track, told apart by
 * `job`. Every kind reads the source from input_url and knows it from `source` (its probe).
 */
export interface EncodeRequest__Output {
  'jobId': (string);
  'videoId': (string);
  'inputUrl': (string);
  'source': (_kino_v1_ProbeResult__Output | null);
  'whole'?: (_kino_v1_WholeEncode__Output | null);
  'chunk'?: (_kino_v1_ChunkEncode__Output | null);
  'audioTrack'?: (_kino_v1_AudioTrackEncode__Output | null);
  /**
   * Someone waits for this encode (a viewer asked for a segment, or a video's first segments): it
   * may take the node's demand slot (one beside its slots) and its ffmpeg runs ahead of the node's
   * other encodes, which run niced (docs/decisions/just-in-time.md).
   */
  'onDemand': (boolean);
  /**
   * Set: an image laid over every picture rendition of the request (the video's watermark,
   * @kino/proto/contract watermarks.ts); unset: none. Audio-only renditions have no picture.
   */
  'watermark': (_kino_v1_Watermark__Output | null);
  /**
   * A broadcast (issue 56): input_url is the ingest's RTMP relay of the publisher's stream, read
   * for as long as it is published; the files come back on the call's own stream (EncodeEvent.file).
   */
  'live'?: (_kino_v1_LiveEncode__Output | null);
  'job'?: "whole"|"chunk"|"audioTrack"|"live";
}
