// The analytics store, ClickHouse, in one place: the client, the schema and its migrations (run by
// the API only), the segment-log row delivery nodes write, the rollups, and the reads the API makes.
export * from './clickhouse.ts';
export * from './migrations.ts';
export * from './segment-row.ts';
export * from './playback-view.ts';
export * from './playback-event.ts';
export * from './playback-fold.ts';
export * from './rollups.ts';
export * from './rollup-marks.ts';
export * from './experience-rollups.ts';
export * from './analytics-store.ts';
export * from './backup.ts';
