// Original file: kino.proto


export interface ThumbnailRequest {
  'jobId'?: (string);
  'inputUrl'?: (string);
  'timestampSeconds'?: (number | string);
  /**
   * 0: keep the source's size (height likewise)
   */
  'width'?: (number);
  'height'?: (number);
  /**
   * presigned PUT, image/jpeg
   */
  'outputUrl'?: (string);
  /**
   * The source's (ProbeResult.dynamic_range): an HDR source's picture is tone-mapped to SDR, as its
   * SDR renditions are; empty: sdr.
   */
  'dynamicRange'?: (string);
}

export interface ThumbnailRequest__Output {
  'jobId': (string);
  'inputUrl': (string);
  'timestampSeconds': (number);
  /**
   * 0: keep the source's size (height likewise)
   */
  'width': (number);
  'height': (number);
  /**
   * presigned PUT, image/jpeg
   */
  'outputUrl': (string);
  /**
   * The source's (ProbeResult.dynamic_range): an HDR source's picture is tone-mapped to SDR, as its
   * SDR renditions are; empty: sdr.
   */
  'dynamicRange': (string);
}
