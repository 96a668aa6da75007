// Original file: kino.proto


export interface HeartbeatResponse {
  /**
   * false: the registry dropped this node; register again
   */
  'known'?: (boolean);
}

export interface HeartbeatResponse__Output {
  /**
   * false: the registry dropped this node; register again
   */
  'known': (boolean);
}
