// Original file: kino.proto


export interface RegisterResponse {
  'nodeId'?: (string);
  'heartbeatIntervalMs'?: (number);
  /**
   * The node registered with an id the registry had marked gone (it hung past the heartbeat
   * timeout): the jobs it still runs have moved to other nodes, so it abandons them. False from a
   * registry that predates the field, which a node that predates it ignores.
   */
  'wasGone'?: (boolean);
  /**
   * HOST:PORT of the relay the orchestrators call this node through (the orchestrator holding its
   * Connect stream): for logs and tests; nothing dials the node itself.
   */
  'relayAddress'?: (string);
}

export interface RegisterResponse__Output {
  'nodeId': (string);
  'heartbeatIntervalMs': (number);
  /**
   * The node registered with an id the registry had marked gone (it hung past the heartbeat
   * timeout): the jobs it still runs have moved to other nodes, so it abandons them. False from a
   * registry that predates the field, which a node that predates it ignores.
   */
  'wasGone': (boolean);
  /**
   * HOST:PORT of the relay the orchestrators call this node through (the orchestrator holding its
   * Connect stream): for logs and tests; nothing dials the node itself.
   */
  'relayAddress': (string);
}
