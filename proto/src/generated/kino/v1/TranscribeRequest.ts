// Original file: kino.proto


export interface TranscribeRequest {
  'jobId'?: (string);
  /**
   * presigned GET of the source
   */
  'inputUrl'?: (string);
  /**
   * a language the node reported, or "auto": the engine detects it
   */
  'language'?: (string);
  /**
   * presigned PUT, text/vtt: the cues (the transcript is read from them)
   */
  'vttUrl'?: (string);
}

export interface TranscribeRequest__Output {
  'jobId': (string);
  /**
   * presigned GET of the source
   */
  'inputUrl': (string);
  /**
   * a language the node reported, or "auto": the engine detects it
   */
  'language': (string);
  /**
   * presigned PUT, text/vtt: the cues (the transcript is read from them)
   */
  'vttUrl': (string);
}
