// Original file: kino.proto


export interface RenewResponse {
  /**
   * PEM, signed by the farm CA, common name the node's id.
   */
  'certificate'?: (string);
}

export interface RenewResponse__Output {
  /**
   * PEM, signed by the farm CA, common name the node's id.
   */
  'certificate': (string);
}
