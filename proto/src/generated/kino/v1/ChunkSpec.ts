// Original file: kino.proto


/**
 * One chunk of a video: the source from start_seconds for duration_seconds (both multiples of the
 * segment length, the last chunk's duration running to the end), every rendition of the request
 * from one decode, with the video's timestamps (a chunk at 60 s starts at 60 s).
 */
export interface ChunkSpec {
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
   * Presigned GET of the video's audio track (an encode with audio_track_url); empty: no audio.
   */
  'audioUrl'?: (string);
}

/**
 * One chunk of a video: the source from start_seconds for duration_seconds (both multiples of the
 * segment length, the last chunk's duration running to the end), every rendition of the request
 * from one decode, with the video's timestamps (a chunk at 60 s starts at 60 s).
 */
export interface ChunkSpec__Output {
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
   * Presigned GET of the video's audio track (an encode with audio_track_url); empty: no audio.
   */
  'audioUrl': (string);
}
