// Original file: kino.proto


export interface StoryboardRequest {
  'jobId'?: (string);
  'inputUrl'?: (string);
  /**
   * the source's, from its probe: the cues cover exactly this
   */
  'durationSeconds'?: (number | string);
  /**
   * presigned PUTs, image/jpeg, one per sheet in order (storyboard-<n>.jpg)
   */
  'sheetUrls'?: (string)[];
  /**
   * presigned PUT, text/vtt
   */
  'vttUrl'?: (string);
  /**
   * the source's, as ThumbnailRequest's
   */
  'dynamicRange'?: (string);
}

export interface StoryboardRequest__Output {
  'jobId': (string);
  'inputUrl': (string);
  /**
   * the source's, from its probe: the cues cover exactly this
   */
  'durationSeconds': (number);
  /**
   * presigned PUTs, image/jpeg, one per sheet in order (storyboard-<n>.jpg)
   */
  'sheetUrls': (string)[];
  /**
   * presigned PUT, text/vtt
   */
  'vttUrl': (string);
  /**
   * the source's, as ThumbnailRequest's
   */
  'dynamicRange': (string);
}
