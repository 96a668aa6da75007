// Original file: kino.proto


/**
 * The audio track of a chunked video: only the source's audio, as one MP4 uploaded to output_url
 * (the chunks stream-copy their part of it: one audio encode, no seams).
 */
export interface AudioTrackEncode {
  /**
   * aac, aac-he, aac-he-v2, mp3, ac3, eac3
   */
  'audioCodec'?: (string);
  'audioBitrateKbps'?: (number);
  /**
   * presigned PUT
   */
  'outputUrl'?: (string);
}

/**
 * The audio track of a chunked video: only the source's audio, as one MP4 uploaded to output_url
 * (the chunks stream-copy their part of it: one audio encode, no seams).
 */
export interface AudioTrackEncode__Output {
  /**
   * aac, aac-he, aac-he-v2, mp3, ac3, eac3
   */
  'audioCodec': (string);
  'audioBitrateKbps': (number);
  /**
   * presigned PUT
   */
  'outputUrl': (string);
}
