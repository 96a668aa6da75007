import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { KeyEncryption, KeyEncryptionError, isKeyEncryptionKey } from './key-encryption.ts';

describe('key encryption (AES-256-GCM)', () => {
  const key = randomBytes(32).toString('base64');

  it('seals a secret so that only the same key and context open it', () => {
    const box = new KeyEncryption(key);
    const sealed = box.seal('{"d":"private"}', 'kid-1');
    assert.ok(!sealed.includes('private'));
    assert.notEqual(box.seal('{"d":"private"}', 'kid-1'), sealed, 'a fresh IV each time');
    assert.equal(box.open(sealed, 'kid-1'), '{"d":"private"}');
    assert.throws(() => box.open(sealed, 'kid-2'), KeyEncryptionError);
    assert.throws(
      () => new KeyEncryption(randomBytes(32).toString('base64')).open(sealed, 'kid-1'),
      KeyEncryptionError,
    );
    const [v, iv, tag, body] = sealed.split('.') as [string, string, string, string];
    const altered = `${v}.${iv}.${tag}.${body.slice(0, -2)}${body.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.throws(() => box.open(altered, 'kid-1'), KeyEncryptionError);
  });

  it('accepts only 32 bytes in base64 as the key', () => {
    assert.equal(isKeyEncryptionKey(key), true);
    assert.equal(isKeyEncryptionKey(randomBytes(16).toString('base64')), false);
    assert.equal(isKeyEncryptionKey('not base64 at all!'), false);
    assert.throws(() => new KeyEncryption('short'), KeyEncryptionError);
  });
});
