import { describe, it, beforeAll, afterAll } from 'vitest';
import assert from 'node:assert/strict';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from 'jose';
import { randomBytes } from 'node:crypto';
import { migrateToLatest, type Db, KeyEncryption, sealPlaintextSigningKeys } from '@kino/database';
import { openPgliteDatabase } from '@kino/database/testing';
import { PlaybackKeyring, RETIRED_KEY_GRACE_MS, mintPlaybackToken, signedPlaybackUrl } from './index.ts';
import { isDomainAllowed, parseDomainList } from '@kino/proto/contract';
import { insertSigningKey } from '@kino/database/repositories';

describe('playback signing keys and tokens', () => {
  const encryption = new KeyEncryption(randomBytes(32).toString('base64'));
  let db: Db;
  beforeAll(async () => {
    db = await openPgliteDatabase();
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('makes a key on first use and signs tokens the JWKS verifies', async () => {
    const keyring = new PlaybackKeyring(db, encryption);
    const key = await keyring.activeKey();
    const token = await mintPlaybackToken(key, { videoId: 'vid_a', expiresInSeconds: 3600, domains: ['example.com'] });
    assert.equal(decodeProtectedHeader(token).kid, key.kid);
    const jwks = await keyring.jwks();
    assert.equal(jwks.keys.length, 1);
    assert.equal(jwks.keys[0]!.d, undefined, 'the JWKS never carries the private part');
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: 'kino', audience: 'vid_a' });
    assert.equal(payload.sub, 'vid_a');
    assert.deepEqual(payload.domains, ['example.com']);
    assert.equal(payload.exp! - payload.iat!, 3600);
    await assert.rejects(jwtVerify(token, createLocalJWKSet(jwks), { issuer: 'kino', audience: 'vid_b' }));
  });

  it('keeps a retired key published until its tokens have expired, then drops it', async () => {
    let now = Date.now();
    const keyring = new PlaybackKeyring(db, encryption, () => now);
    const oldKey = await keyring.activeKey();
    const oldToken = await mintPlaybackToken(oldKey, { videoId: 'vid_a', expiresInSeconds: 7 * 86400 });
    const newKid = await keyring.rotate();
    assert.notEqual(newKid, oldKey.kid);
    assert.equal((await keyring.activeKey()).kid, newKid);
    const kids = (await keyring.jwks()).keys.map((k) => k.kid);
    assert.deepEqual(kids.sort(), [oldKey.kid, newKid].sort());
    await jwtVerify(oldToken, createLocalJWKSet(await keyring.jwks()), { issuer: 'kino', audience: 'vid_a' });
    now += RETIRED_KEY_GRACE_MS + 1000;
    const later = new PlaybackKeyring(db, encryption, () => now);
    assert.deepEqual(
      (await later.jwks()).keys.map((k) => k.kid),
      [newKid],
    );
  });

  it('seals keys stored in clear before sealing existed, and signs with them afterwards', async () => {
    const legacy = await openPgliteDatabase();
    await migrateToLatest(legacy);
    // A row as the API wrote it before private keys were sealed.
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const meta = { kid, alg: 'ES256', use: 'sig' };
    await insertSigningKey(legacy, {
      kid,
      algorithm: 'ES256',
      public_jwk: JSON.stringify({ ...publicJwk, ...meta }),
      private_jwk: JSON.stringify({ ...(await exportJWK(privateKey)), ...meta }),
    });
    await assert.rejects(new PlaybackKeyring(legacy, encryption).activeKey(), /stored in clear/);
    assert.equal(await sealPlaintextSigningKeys(legacy, encryption), 1);
    assert.equal(await sealPlaintextSigningKeys(legacy, encryption), 0, 'sealing twice is harmless');
    const row = await legacy.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.private_jwk, null);
    assert.ok(row.private_key_sealed && !row.private_key_sealed.includes('"d"'));
    const keyring = new PlaybackKeyring(legacy, encryption);
    const token = await mintPlaybackToken(await keyring.activeKey(), { videoId: 'vid_a', expiresInSeconds: 60 });
    await jwtVerify(token, createLocalJWKSet(await keyring.jwks()), { issuer: 'kino', audience: 'vid_a' });
    // Another key encryption key opens nothing.
    const stranger = new KeyEncryption(randomBytes(32).toString('base64'));
    await assert.rejects(new PlaybackKeyring(legacy, stranger).activeKey(), /does not open/);
    await legacy.destroy();
  });

  it('parses domain lists and matches Origin/Referer hosts', () => {
    assert.deepEqual(parseDomainList(' Example.com, *.cdn.example.org ,,'), {
      domains: ['example.com', '*.cdn.example.org'],
    });
    assert.deepEqual(parseDomainList('https://a.com,b.com:80,ok.com'), { invalid: ['https://a.com', 'b.com:80'] });
    assert.equal(isDomainAllowed(undefined, undefined, undefined), true);
    assert.equal(isDomainAllowed(['a.com'], 'https://a.com:8443', undefined), true);
    assert.equal(isDomainAllowed(['a.com'], undefined, 'https://A.com/watch?v=1'), true);
    assert.equal(
      isDomainAllowed(['a.com'], 'https://www.a.com', undefined),
      false,
      'exact entries do not cover subdomains',
    );
    assert.equal(isDomainAllowed(['*.a.com'], 'https://www.a.com', undefined), true);
    assert.equal(isDomainAllowed(['*.a.com'], 'https://x.y.a.com', undefined), true);
    assert.equal(isDomainAllowed(['*.a.com'], 'https://a.com', undefined), false);
    assert.equal(isDomainAllowed(['*.a.com'], 'https://evila.com', undefined), false);
    assert.equal(isDomainAllowed(['a.com'], 'https://b.com', 'https://a.com/'), false, 'Origin wins over Referer');
    assert.equal(isDomainAllowed(['a.com'], 'null', undefined), false);
    assert.equal(isDomainAllowed(['a.com'], undefined, undefined), false, 'no page named: refused');
  });

  it('builds the signed URL on the delivery host', () => {
    assert.equal(
      signedPlaybackUrl('http://127.0.0.1:7081/', 'vid_x', 'a.b.c'),
      'http://127.0.0.1:7081/v1/private/vid_x/master.m3u8?token=a.b.c',
    );
  });
});
