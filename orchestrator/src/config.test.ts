import { test } from 'vitest';
import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '@kino/infra';
import { orchestratorConfigShape, parseOrchestratorConfig, registryTlsNames } from './config.ts';

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

test('the shared NODE_TOKEN: off by default, required when REGISTRY_ACCEPT_NODE_TOKEN turns it on', () => {
  const { NODE_TOKEN: _omitted, ...withoutToken } = minimal;
  assert.equal(parseOrchestratorConfig(withoutToken).REGISTRY_ACCEPT_NODE_TOKEN, false);
  assert.throws(
    () => parseOrchestratorConfig({ ...withoutToken, REGISTRY_ACCEPT_NODE_TOKEN: 'true' }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /NODE_TOKEN: required with REGISTRY_ACCEPT_NODE_TOKEN=true/);
      return true;
    },
  );
});

test("the registry certificate's names: REGISTRY_TLS_NAMES, else a REGISTRY_HOST that is not a wildcard", () => {
  assert.deepEqual(registryTlsNames(parseOrchestratorConfig(minimal)), ['127.0.0.1']);
  assert.deepEqual(registryTlsNames(parseOrchestratorConfig({ ...minimal, REGISTRY_HOST: '0.0.0.0' })), []);
  assert.deepEqual(
    registryTlsNames(
      parseOrchestratorConfig({
        ...minimal,
        REGISTRY_HOST: '0.0.0.0',
        REGISTRY_TLS_NAMES: 'registry.example.com, 10.0.0.5',
      }),
    ),
    ['registry.example.com', '10.0.0.5'],
  );
});

test('a missing or wrong value names its variable', () => {
  const { DATABASE_URL: _omitted, ...withoutDatabase } = minimal;
  assert.throws(
    () => parseConfig(orchestratorConfigShape, withoutDatabase),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /DATABASE_URL/);
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
