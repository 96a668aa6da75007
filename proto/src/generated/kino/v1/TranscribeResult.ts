// Original file: kino.proto


export interface TranscribeResult {
  /**
   * the language transcribed: the one asked, or the one detected
   */
  'language'?: (string);
  'words'?: (number);
  /**
   * how much sound the engine read
   */
  'audioSeconds'?: (number | string);
}

export interface TranscribeResult__Output {
  /**
   * the language transcribed: the one asked, or the one detected
   */
  'language': (string);
  'words': (number);
  /**
   * how much sound the engine read
   */
  'audioSeconds': (number);
}
