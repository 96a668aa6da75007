// Original file: kino.proto


/**
 * One audio stream of a source, its tags as the container gives them ("" when absent).
 */
export interface ProbeAudioTrack {
  /**
   * as written: ISO 639-2 in MP4 and Matroska ("eng")
   */
  'language'?: (string);
  'title'?: (string);
  /**
   * the container's default disposition
   */
  'isDefault'?: (boolean);
  'channels'?: (number);
}

/**
 * One audio stream of a source, its tags as the container gives them ("" when absent).
 */
export interface ProbeAudioTrack__Output {
  /**
   * as written: ISO 639-2 in MP4 and Matroska ("eng")
   */
  'language': (string);
  'title': (string);
  /**
   * the container's default disposition
   */
  'isDefault': (boolean);
  'channels': (number);
}
