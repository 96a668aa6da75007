// Original file: kino.proto


export interface RaisePriorityRequest {
  /**
   * the Encode's job_id
   */
  'jobId'?: (string);
}

export interface RaisePriorityRequest__Output {
  /**
   * the Encode's job_id
   */
  'jobId': (string);
}
