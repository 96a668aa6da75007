export * from './migrations.ts';
export * from './rollups.ts';
