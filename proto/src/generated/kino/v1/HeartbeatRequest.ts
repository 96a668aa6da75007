// Original file: kino.proto


export interface HeartbeatRequest {
  'token'?: (string);
  'nodeId'?: (string);
  'activeJobs'?: (string)[];
  'draining'?: (boolean);
}

export interface HeartbeatRequest__Output {
  'token': (string);
  'nodeId': (string);
  'activeJobs': (string)[];
  'draining': (boolean);
}
