// Original file: kino.proto


export interface EnrollResponse {
  'nodeId'?: (string);
  /**
   * PEM, signed by the farm CA, common name node_id: the node's credential from now on.
   */
  'certificate'?: (string);
  'caCertificate'?: (string);
}

export interface EnrollResponse__Output {
  'nodeId': (string);
  /**
   * PEM, signed by the farm CA, common name node_id: the node's credential from now on.
   */
  'certificate': (string);
  'caCertificate': (string);
}
