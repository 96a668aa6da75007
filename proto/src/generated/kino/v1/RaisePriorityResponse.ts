// Original file: kino.proto


export interface RaisePriorityResponse {
  /**
   * false: no encode of that job runs on this node (not started yet, or over)
   */
  'running'?: (boolean);
}

export interface RaisePriorityResponse__Output {
  /**
   * false: no encode of that job runs on this node (not started yet, or over)
   */
  'running': (boolean);
}
