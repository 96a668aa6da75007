// Original file: kino.proto


export interface RenewRequest {
  /**
   * A PKCS #10 request in PEM for the node's new key pair.
   */
  'certificateRequest'?: (string);
}

export interface RenewRequest__Output {
  /**
   * A PKCS #10 request in PEM for the node's new key pair.
   */
  'certificateRequest': (string);
}
