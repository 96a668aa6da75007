// Original file: kino.proto


export interface ProbeRequest {
  'jobId'?: (string);
  'inputUrl'?: (string);
}

export interface ProbeRequest__Output {
  'jobId': (string);
  'inputUrl': (string);
}
