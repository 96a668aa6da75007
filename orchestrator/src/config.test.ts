import { test } from 'vitest';
import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '@kino/infra';
import { orchestratorConfigShape } from './config.ts';

const minimal = {
  DATABASE_URL: 'postgres://kino@127.0.0.1:7432/kino',
  S3_ENDPOINT: 'http://127.0.0.1:7333',
  S3_BUCKET: 'kino',
  S3_ACCESS_KEY_ID: 'id',
  S3_SECRET_ACCESS_KEY: 'secret',
  NODE_TOKEN: 'farm-token-123',
  DELIVERY_URL: 'http://127.0.0.1:7081',
  KINO_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

test('defaults fill what is not set', () => {
  const config = parseConfig(orchestratorConfigShape, minimal);
  assert.equal(config.TEMPORAL_ADDRESS, '127.0.0.1:7233');
  assert.equal(config.TEMPORAL_NAMESPACE, 'default');
  assert.equal(config.REGISTRY_HOST, '127.0.0.1');
  assert.equal(config.REGISTRY_PORT, 7090);
  assert.equal(config.NODE_HEARTBEAT_TIMEOUT_MS, 10_000);
  assert.equal(config.LOG_LEVEL, 'info');
  assert.equal(config.S3_FORCE_PATH_STYLE, true);
  assert.equal(config.ENCODE_GROUPING, 'auto');
});

test('ENCODE_GROUPING: auto, ladder or rendition, nothing else', () => {
  assert.equal(
    parseConfig(orchestratorConfigShape, { ...minimal, ENCODE_GROUPING: 'rendition' }).ENCODE_GROUPING,
    'rendition',
  );
  assert.throws(() => parseConfig(orchestratorConfigShape, { ...minimal, ENCODE_GROUPING: 'node' }), /ENCODE_GROUPING/);
});

test('a missing or wrong value names its variable', () => {
  const { NODE_TOKEN: _omitted, ...withoutToken } = minimal;
  assert.throws(
    () => parseConfig(orchestratorConfigShape, withoutToken),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /NODE_TOKEN/);
      return true;
    },
  );
  assert.throws(() => parseConfig(orchestratorConfigShape, { ...minimal, REGISTRY_PORT: 'seventy' }), /REGISTRY_PORT/);
  assert.throws(
    () => parseConfig(orchestratorConfigShape, { ...minimal, TEMPORAL_ADDRESS: 'nowhere' }),
    /TEMPORAL_ADDRESS/,
  );
  assert.throws(
    () => parseConfig(orchestratorConfigShape, { ...minimal, NODE_HEARTBEAT_TIMEOUT_MS: '5' }),
    /NODE_HEARTBEAT_TIMEOUT_MS/,
  );
});
