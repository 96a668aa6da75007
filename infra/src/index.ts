// What Kino's production processes (api, orchestrator, encode nodes, delivery) run. Dev tooling
// (service launchers, the embedded analytics store, ports, waits) is `@kino/dev`.
export * from './config.ts';
export * from './logger.ts';
export * from './paths.ts';
export * from './storage.ts';
export * from './ids.ts';
export * from './run-process.ts';
export * from './http-client-error.ts';
export * from './metrics.ts';
export * from './http-server-limits.ts';
export * from './closest-name.ts';
