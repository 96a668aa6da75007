// Secrets at rest, sealed with AES-256-GCM under the operator's key encryption key
// (KINO_KEY_ENCRYPTION_KEY: 32 random bytes in base64, e.g. `openssl rand -base64 32`). Used for the
// private halves of playback signing keys: a copy of the database alone cannot mint tokens.
// Each value is bound to what it belongs to (the `context`, e.g. the key's kid, as GCM's additional
// data), so a sealed value moved to another row does not open there.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const version = 'v1';
const ivBytes = 12;

export class KeyEncryptionError extends Error {
  override name = 'KeyEncryptionError';
}

/** Whether a configuration value is a usable key encryption key: base64 of exactly 32 bytes. */
export function isKeyEncryptionKey(value: string): boolean {
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

export class KeyEncryption {
  private readonly key: Buffer;

  constructor(base64Key: string) {
    if (!isKeyEncryptionKey(base64Key)) {
      throw new KeyEncryptionError('the key encryption key must be 32 bytes in base64 (openssl rand -base64 32)');
    }
    this.key = Buffer.from(base64Key, 'base64');
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, each part base64url. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [version, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open(sealed: string, context: string): string {
    const [tag, iv, authTag, ciphertext] = sealed.split('.');
    if (tag !== version || !iv || !authTag || ciphertext === undefined)
      throw new KeyEncryptionError(`not a sealed value of version ${version}`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(authTag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new KeyEncryptionError(
        'a sealed key does not open with KINO_KEY_ENCRYPTION_KEY: the key changed, or the value was altered',
      );
    }
  }
}
