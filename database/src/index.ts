// @kino/database: opening the metadata database, its schema and migrations, API key hashing and the
// encryption of stored private keys. The repositories are `@kino/database/repositories`; the operators'
// access is `@kino/database/admin`; an in-memory database for tests is `@kino/database/testing`.
export * from './database.ts';
export { migrations, concurrentIndexes, CONCURRENT_INDEX_BUILD_LOCK } from './migrations/index.ts';
export type * from './schema.ts';
export * from './keys/api-key-format.ts';
export * from './keys/stream-key-format.ts';
export { KeyEncryption, KeyEncryptionError, isKeyEncryptionKey } from './keys/key-encryption.ts';
export { sealPlaintextSigningKeys } from './keys/seal-signing-keys.ts';
export * from './video-events.ts';
