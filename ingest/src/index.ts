export * from './config.ts';
export * from './main.ts';
export * from './broadcasts.ts';
export * from './publish-sessions.ts';
export * from './key-watch.ts';
