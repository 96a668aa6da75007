// Original file: kino.proto


export interface RegisterRequest {
  'token'?: (string);
  /**
   * empty on first start; a restarted node may re-use its id
   */
  'nodeId'?: (string);
  /**
   * HOST:PORT where its EncodeService is reachable
   */
  'address'?: (string);
  'slots'?: (number);
  'version'?: (string);
  'labels'?: ({[key: string]: string});
}

export interface RegisterRequest__Output {
  'token': (string);
  /**
   * empty on first start; a restarted node may re-use its id
   */
  'nodeId': (string);
  /**
   * HOST:PORT where its EncodeService is reachable
   */
  'address': (string);
  'slots': (number);
  'version': (string);
  'labels': ({[key: string]: string});
}
