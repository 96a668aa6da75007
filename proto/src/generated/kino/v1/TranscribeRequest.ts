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
   * The span of the source to transcribe (a piece of a long video); end 0: to the source's end.
   * Word times in the answer are on the source's timeline, not the piece's.
   */
  'startSeconds'?: (number | string);
  'endSeconds'?: (number | string);
  /**
   * presigned PUT, application/json: TranscribedWords (the contract's)
   */
  'wordsUrl'?: (string);
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
   * The span of the source to transcribe (a piece of a long video); end 0: to the source's end.
   * Word times in the answer are on the source's timeline, not the piece's.
   */
  'startSeconds': (number);
  'endSeconds': (number);
  /**
   * presigned PUT, application/json: TranscribedWords (the contract's)
   */
  'wordsUrl': (string);
}
