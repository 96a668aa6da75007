// Original file: kino.proto


export interface RegisterResponse {
  'nodeId'?: (string);
  'heartbeatIntervalMs'?: (number);
}

export interface RegisterResponse__Output {
  'nodeId': (string);
  'heartbeatIntervalMs': (number);
}
