import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { migrateToLatest, type Db, KeyEncryption } from '@kino/database';
import { openPgliteDatabase } from '@kino/database/testing';
import { SignJWT, exportSPKI, importJWK, type CryptoKey } from 'jose';
import { randomBytes } from 'node:crypto';
import { PlaybackKeyring, mintPlaybackToken } from '@kino/database/playback-keys';
import { PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS } from '@kino/proto/contract';
import { waitFor } from '@kino/dev';
import { DeliveryError } from './errors.ts';
import { PlaybackTokenVerifier } from './playback-auth.ts';

const encryption = new KeyEncryption(randomBytes(32).toString('base64'));
let db: Db;
let keyring: PlaybackKeyring;
let jwksServer: Server;
let jwksFetches = 0;
let verifier: PlaybackTokenVerifier;
let jwksUrl: URL;

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
  keyring = new PlaybackKeyring(db, encryption);
  // The control plane's JWKS, served as the API serves it.
  jwksServer = createServer((_req, res) => {
    jwksFetches++;
    void keyring.jwks().then((jwks) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(jwks));
    });
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = new URL(`http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`);
  verifier = new PlaybackTokenVerifier(jwksUrl);
});

afterAll(async () => {
  jwksServer.close();
  await db.destroy();
});

/** A verifier with nothing remembered: every token is checked from scratch. */
function fresh(): PlaybackTokenVerifier {
  return new PlaybackTokenVerifier(jwksUrl);
}

async function rejection(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DeliveryError, `expected a DeliveryError, got ${String(error)}`);
    return { status: error.status, code: error.code };
  }
  assert.fail('expected the token to be refused');
}

test('a valid token plays its video', async () => {
  const token = await mintPlaybackToken(await keyring.activeKey(), { videoId: 'vid_a', expiresInSeconds: 60 });
  const claims = await verifier.authorize(token, 'vid_a', {});
  assert.equal(claims.sub, 'vid_a');
  // Cached: a second check does not verify again, but still checks the video.
  await verifier.authorize(token, 'vid_a', {});
  assert.deepEqual(await rejection(verifier.authorize(token, 'vid_b', {})), {
    status: 403,
    code: 'token_video_mismatch',
  });
});

test('missing, expired, tampered and foreign tokens are refused with named codes', async () => {
  const key = await keyring.activeKey();
  assert.deepEqual(await rejection(verifier.authorize(null, 'vid_a', {})), { status: 401, code: 'token_required' });
  const expired = await mintPlaybackToken(key, {
    videoId: 'vid_a',
    expiresInSeconds: 60,
    issuedAt: Math.floor(Date.now() / 1000) - 3600,
  });
  assert.deepEqual(await rejection(verifier.authorize(expired, 'vid_a', {})), { status: 401, code: 'token_expired' });
  const good = await mintPlaybackToken(key, { videoId: 'vid_a', expiresInSeconds: 60 });
  const [header, payload, signature] = good.split('.') as [string, string, string];
  const forged = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), aud: 'vid_b', sub: 'vid_b' }),
  ).toString('base64url');
  assert.deepEqual(await rejection(verifier.authorize(`${header}.${forged}.${signature}`, 'vid_b', {})), {
    status: 401,
    code: 'invalid_token',
  });
  const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
  assert.deepEqual(await rejection(verifier.authorize(`${header}.${payload}.${flipped}`, 'vid_a', {})), {
    status: 401,
    code: 'invalid_token',
  });
  assert.deepEqual(await rejection(verifier.authorize('not-a-jwt', 'vid_a', {})), {
    status: 401,
    code: 'invalid_token',
  });
  // Signed by a key the control plane never published.
  const strangerDb = await openPgliteDatabase();
  await migrateToLatest(strangerDb);
  const stranger = await mintPlaybackToken(await new PlaybackKeyring(strangerDb, encryption).activeKey(), {
    videoId: 'vid_a',
    expiresInSeconds: 60,
  });
  assert.deepEqual(await rejection(verifier.authorize(stranger, 'vid_a', {})), { status: 401, code: 'invalid_token' });
  await strangerDb.destroy();
});

test('domains bind a token to the pages named by Origin or Referer', async () => {
  const token = await mintPlaybackToken(await keyring.activeKey(), {
    videoId: 'vid_a',
    expiresInSeconds: 60,
    domains: ['player.example', '*.example.org'],
  });
  await verifier.authorize(token, 'vid_a', { origin: 'https://player.example' });
  await verifier.authorize(token, 'vid_a', { referer: 'https://www.example.org/watch' });
  assert.deepEqual(await rejection(verifier.authorize(token, 'vid_a', { origin: 'https://evil.example' })), {
    status: 403,
    code: 'domain_not_allowed',
  });
  assert.deepEqual(await rejection(verifier.authorize(token, 'vid_a', {})), {
    status: 403,
    code: 'domain_not_allowed',
  });
});

test('attacks on the token: alg none, HS256 keyed with the public key, a foreign kid, another video', async () => {
  const key = await keyring.activeKey();
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: 'kino', sub: 'vid_a', aud: 'vid_a', iat: now, exp: now + 600 };
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  // alg none: an unsigned token naming a real kid.
  const unsigned = `${part({ alg: 'none', kid: key.kid, typ: 'JWT' })}.${part(claims)}.`;
  assert.deepEqual(await rejection(fresh().authorize(unsigned, 'vid_a', {})), { status: 401, code: 'invalid_token' });
  // HS256 with the published public key as the HMAC secret, as PEM and as the JWKS's JSON.
  const published = (await keyring.jwks()).keys.find((jwk) => jwk.kid === key.kid)!;
  const pem = await exportSPKI((await importJWK(published, 'ES256')) as CryptoKey);
  for (const secret of [pem, JSON.stringify(published)]) {
    const confused = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .sign(new TextEncoder().encode(secret));
    assert.deepEqual(await rejection(fresh().authorize(confused, 'vid_a', {})), { status: 401, code: 'invalid_token' });
  }
  // A real signature under a kid the key set does not hold.
  const good = await mintPlaybackToken(key, { videoId: 'vid_a', expiresInSeconds: 600 });
  const [, payload, signature] = good.split('.') as [string, string, string];
  const foreignKid = `${part({ alg: 'ES256', kid: 'not-a-kino-key', typ: 'JWT' })}.${payload}.${signature}`;
  assert.deepEqual(await rejection(fresh().authorize(foreignKid, 'vid_a', {})), { status: 401, code: 'invalid_token' });
  // A valid token of a video in another environment opens that video only (public ids are global).
  const otherEnvironments = await mintPlaybackToken(key, { videoId: 'vid_other_env', expiresInSeconds: 600 });
  await fresh().authorize(otherEnvironments, 'vid_other_env', {});
  assert.deepEqual(await rejection(fresh().authorize(otherEnvironments, 'vid_a', {})), {
    status: 403,
    code: 'token_video_mismatch',
  });
});

test('an expired token is accepted within the clock skew and refused beyond it', async () => {
  const key = await keyring.activeKey();
  const now = Math.floor(Date.now() / 1000);
  // Expired half the skew ago: a delivery clock that far ahead of the control plane's still plays it.
  const withinSkew = await mintPlaybackToken(key, {
    videoId: 'vid_a',
    expiresInSeconds: 60,
    issuedAt: now - 60 - PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS / 2,
  });
  assert.equal((await fresh().authorize(withinSkew, 'vid_a', {})).sub, 'vid_a');
  const beyondSkew = await mintPlaybackToken(key, {
    videoId: 'vid_a',
    expiresInSeconds: 60,
    issuedAt: now - 60 - PLAYBACK_TOKEN_CLOCK_SKEW_SECONDS * 2,
  });
  assert.deepEqual(await rejection(fresh().authorize(beyondSkew, 'vid_a', {})), { status: 401, code: 'token_expired' });
});

test('a key made by rotation is fetched when a token names it; tokens of the old key still play', async () => {
  const before = jwksFetches;
  const issuedBefore = await mintPlaybackToken(await keyring.activeKey(), { videoId: 'vid_a', expiresInSeconds: 600 });
  await keyring.rotate();
  const token = await mintPlaybackToken(await keyring.activeKey(), { videoId: 'vid_a', expiresInSeconds: 60 });
  // A try inside the refetch cooldown is refused; the node fetches the new key set after it.
  const claims = await waitFor('the rotated key to verify', () => verifier.authorize(token, 'vid_a', {}), {
    timeoutMs: 10_000,
  });
  assert.equal(claims.sub, 'vid_a');
  assert.ok(jwksFetches > before, 'the key set was fetched again');
  // Issued before the rotation: the retired key is still in the key set, on this node and a new one.
  assert.equal((await verifier.authorize(issuedBefore, 'vid_a', {})).sub, 'vid_a');
  assert.equal((await fresh().authorize(issuedBefore, 'vid_a', {})).sub, 'vid_a');
});
