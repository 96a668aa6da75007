export * from './signing-keys.ts';
export * from './tokens.ts';
export { KeyEncryption, KeyEncryptionError, isKeyEncryptionKey } from '../keys/key-encryption.ts';
