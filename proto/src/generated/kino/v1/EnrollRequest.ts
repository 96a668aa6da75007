// Original file: kino.proto


export interface EnrollRequest {
  /**
   * The token's secret part (`kino_enroll_...`); its other part, the CA's fingerprint, stays with the node.
   */
  'token'?: (string);
  /**
   * A PKCS #10 request in PEM for a key pair the node made: its private key never leaves the node.
   */
  'certificateRequest'?: (string);
}

export interface EnrollRequest__Output {
  /**
   * The token's secret part (`kino_enroll_...`); its other part, the CA's fingerprint, stays with the node.
   */
  'token': (string);
  /**
   * A PKCS #10 request in PEM for a key pair the node made: its private key never leaves the node.
   */
  'certificateRequest': (string);
}
