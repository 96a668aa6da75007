// Original file: kino.proto


/**
 * Only the input's audio, as one MP4 (moov first) uploaded to output_url: the audio track of a
 * chunked video (the chunks stream-copy their part of it: one audio encode, no seams), or a video's
 * `audio.m4a` download.
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
  /**
   * Set: the input's first audio stream is already what is wanted (AAC): it is copied into the
   * MP4 (a remux), not encoded; audio_codec and audio_bitrate_kbps are then not read.
   */
  'copy'?: (boolean);
}

/**
 * Only the input's audio, as one MP4 (moov first) uploaded to output_url: the audio track of a
 * chunked video (the chunks stream-copy their part of it: one audio encode, no seams), or a video's
 * `audio.m4a` download.
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
  /**
   * Set: the input's first audio stream is already what is wanted (AAC): it is copied into the
   * MP4 (a remux), not encoded; audio_codec and audio_bitrate_kbps are then not read.
   */
  'copy': (boolean);
}
