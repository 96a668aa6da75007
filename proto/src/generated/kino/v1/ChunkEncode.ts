// Original file: kino.proto

import type { RenditionSpec as _kino_v1_RenditionSpec, RenditionSpec__Output as _kino_v1_RenditionSpec__Output } from '../../kino/v1/RenditionSpec.ts';

/**
 * One chunk of a longer video: the source from start_seconds for duration_seconds (both multiples
 * of the segment length, the last chunk's duration running to the end), every rendition from one
 * decode, with the video's timestamps (a chunk at 60 s starts at 60 s).
 */
export interface ChunkEncode {
  'renditions'?: (_kino_v1_RenditionSpec)[];
  /**
   * The chunk's segments, numbered for the whole video, and `<key>/init.mp4` for the first chunk
   * only; no playlist (the orchestrator writes the playlists from every chunk's segments).
   */
  'outputUrls'?: ({[key: string]: string});
  /**
   * 0 for the first chunk
   */
  'index'?: (number);
  'startSeconds'?: (number | string);
  'durationSeconds'?: (number | string);
  /**
   * the number of the chunk's first segment in the whole video
   */
  'firstSegment'?: (number);
  /**
   * Presigned GET of the video's audio track (an AudioTrackEncode's output); empty: the source's
   * audio is encoded for the window (a frame-accurate clip's first or last segment), if the
   * renditions have audio.
   */
  'audioUrl'?: (string);
  /**
   * Score every rendition of the chunk against the source's window (VMAF and PSNR) before answering.
   */
  'measureQuality'?: (boolean);
  /**
   * Set (audio_url empty): the node first encodes the video's audio from its start to the chunk's
   * end (and a second more), as AudioTrackEncode encodes the whole track, and copies the chunk's
   * audio from it. The same encoder from the same first sample makes the same AAC packets (byte for
   * byte, but for the last few it flushes, past the chunk's end): a just-in-time video's early runs
   * start before its whole track exists, and join the chunks copied from it seamlessly.
   */
  'audioHead'?: (boolean);
  /**
   * Set: the window starts inside the video's first segment, on a 2 s boundary (a just-in-time
   * video's first 2 s, then from 2 s through the next run's segments): it is written as that
   * segment's 2 s bootstrap segments, `<key>/boot-<n>.m4s` numbered from start_seconds / 2, which the
   * orchestrator joins into seg-00000.m4s; past the first segment, the node joins its 2 s pieces by
   * threes into the 6 s segments, so the window writes seg-00001.m4s on as any chunk does.
   */
  'bootstrap'?: (boolean);
  /**
   * Set: the input starts this far into the video (a broadcast's recording has no source file: a
   * frame-accurate clip of it reads the segment holding its window, init and segment as one file).
   * The window is sought at start_seconds - input_offset_seconds in the input; its output is still
   * timed from start_seconds. 0: the input is the whole video, or its first segment (below).
   */
  'inputOffsetSeconds'?: (number | string);
  /**
   * Set: the input is one segment of the video (a recording's, from input_offset_seconds), its
   * first video frame at the segment's start; its sound may begin a little before it, and `-ss`
   * counts from the earliest stream, so the node seeks from the first video frame instead.
   */
  'inputIsSegment'?: (boolean);
}

/**
 * One chunk of a longer video: the source from start_seconds for duration_seconds (both multiples
 * of the segment length, the last chunk's duration running to the end), every rendition from one
 * decode, with the video's timestamps (a chunk at 60 s starts at 60 s).
 */
export interface ChunkEncode__Output {
  'renditions': (_kino_v1_RenditionSpec__Output)[];
  /**
   * The chunk's segments, numbered for the whole video, and `<key>/init.mp4` for the first chunk
   * only; no playlist (the orchestrator writes the playlists from every chunk's segments).
   */
  'outputUrls': ({[key: string]: string});
  /**
   * 0 for the first chunk
   */
  'index': (number);
  'startSeconds': (number);
  'durationSeconds': (number);
  /**
   * the number of the chunk's first segment in the whole video
   */
  'firstSegment': (number);
  /**
   * Presigned GET of the video's audio track (an AudioTrackEncode's output); empty: the source's
   * audio is encoded for the window (a frame-accurate clip's first or last segment), if the
   * renditions have audio.
   */
  'audioUrl': (string);
  /**
   * Score every rendition of the chunk against the source's window (VMAF and PSNR) before answering.
   */
  'measureQuality': (boolean);
  /**
   * Set (audio_url empty): the node first encodes the video's audio from its start to the chunk's
   * end (and a second more), as AudioTrackEncode encodes the whole track, and copies the chunk's
   * audio from it. The same encoder from the same first sample makes the same AAC packets (byte for
   * byte, but for the last few it flushes, past the chunk's end): a just-in-time video's early runs
   * start before its whole track exists, and join the chunks copied from it seamlessly.
   */
  'audioHead': (boolean);
  /**
   * Set: the window starts inside the video's first segment, on a 2 s boundary (a just-in-time
   * video's first 2 s, then from 2 s through the next run's segments): it is written as that
   * segment's 2 s bootstrap segments, `<key>/boot-<n>.m4s` numbered from start_seconds / 2, which the
   * orchestrator joins into seg-00000.m4s; past the first segment, the node joins its 2 s pieces by
   * threes into the 6 s segments, so the window writes seg-00001.m4s on as any chunk does.
   */
  'bootstrap': (boolean);
  /**
   * Set: the input starts this far into the video (a broadcast's recording has no source file: a
   * frame-accurate clip of it reads the segment holding its window, init and segment as one file).
   * The window is sought at start_seconds - input_offset_seconds in the input; its output is still
   * timed from start_seconds. 0: the input is the whole video, or its first segment (below).
   */
  'inputOffsetSeconds': (number);
  /**
   * Set: the input is one segment of the video (a recording's, from input_offset_seconds), its
   * first video frame at the segment's start; its sound may begin a little before it, and `-ss`
   * counts from the earliest stream, so the node seeks from the first video frame instead.
   */
  'inputIsSegment': (boolean);
}
