export * from './claims.ts';
export * from './signing-keys.ts';
export * from './tokens.ts';
