export * from './migrations.ts';
