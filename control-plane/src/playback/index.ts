export * from './signing-keys.ts';
export * from './tokens.ts';
