// Original file: kino.proto


export interface DeregisterRequest {
  'token'?: (string);
  'nodeId'?: (string);
}

export interface DeregisterRequest__Output {
  'token': (string);
  'nodeId': (string);
}
