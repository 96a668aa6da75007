// Original file: kino.proto


/**
 * A rung's init segment is written: what the master playlist names it by (its CODECS and size).
 */
export interface LiveRenditionStarted {
  'key'?: (string);
  'codecs'?: (string);
  'width'?: (number);
  'height'?: (number);
}

/**
 * A rung's init segment is written: what the master playlist names it by (its CODECS and size).
 */
export interface LiveRenditionStarted__Output {
  'key': (string);
  'codecs': (string);
  'width': (number);
  'height': (number);
}
