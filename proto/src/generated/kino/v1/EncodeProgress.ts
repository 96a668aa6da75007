// Original file: kino.proto


export interface EncodeProgress {
  /**
   * 0..100
   */
  'percent'?: (number | string);
  'encodedSeconds'?: (number | string);
  /**
   * ffmpeg's speed= (x realtime)
   */
  'speed'?: (number | string);
}

export interface EncodeProgress__Output {
  /**
   * 0..100
   */
  'percent': (number);
  'encodedSeconds': (number);
  /**
   * ffmpeg's speed= (x realtime)
   */
  'speed': (number);
}
