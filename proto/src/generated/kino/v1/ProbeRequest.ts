// Original file: kino.proto


export interface ProbeRequest {
  'jobId'?: (string);
  'inputUrl'?: (string);
  /**
   * The input is a broadcast being published (an RTMP URL): it has no duration yet, which is no
   * failure; ffprobe reads only as far as its streams' description.
   */
  'live'?: (boolean);
}

export interface ProbeRequest__Output {
  'jobId': (string);
  'inputUrl': (string);
  /**
   * The input is a broadcast being published (an RTMP URL): it has no duration yet, which is no
   * failure; ffprobe reads only as far as its streams' description.
   */
  'live': (boolean);
}
