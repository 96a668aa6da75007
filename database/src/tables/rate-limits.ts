/** Fixed-window request counters, shared by every API instance through the database. */
export interface RateLimitCountersTable {
  /** e.g. `org:org_…:general` or `key:key_…:upload-url`. */
  scope: string;
  window_start: Date;
  count: number;
}
