// Dev and test tooling: what `kino dev`, the tests and the benchmarks use to run the farm's
// services on one machine. Production code does not import it (eslint.config.js enforces that).
export * from './binaries.ts';
export * from './ports.ts';
export * from './wait.ts';
export * from './malloc-tunables.ts';
export * from './managed-process.ts';
export * from './source-runner.ts';
export * from './services/postgres.ts';
export * from './services/temporal.ts';
export * from './services/temporal-server.ts';
export * from './services/seaweedfs.ts';
export * from './services/clickhouse-server.ts';
export * from './analytics/chdb-http-server.ts';
export * from './analytics/main.ts';
export * from './services/oidc-provider.ts';
