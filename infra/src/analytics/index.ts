export * from './migrations.ts';
export * from './chdb-http-server.ts';
export * from './main.ts';
