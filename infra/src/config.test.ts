import { test } from 'vitest';
import assert from 'node:assert/strict';
import { ConfigError, env, parseConfig, storageConfigShape, z } from './config.ts';

const shape = { PORT: env.port(7080), ORIGINS: env.list().optional(), VERBOSE: env.bool(false), NAME: z.string() };

test('defaults apply, lists split, booleans parse, empty strings count as unset', () => {
  const config = parseConfig(shape, { NAME: 'kino', ORIGINS: 'https://a.example, https://b.example', VERBOSE: '1', PORT: '' });
  assert.deepEqual(config, { PORT: 7080, ORIGINS: ['https://a.example', 'https://b.example'], VERBOSE: true, NAME: 'kino' });
});

test('every wrong or missing value is named by its variable', () => {
  assert.throws(
    () => parseConfig({ ...shape, ...storageConfigShape }, { PORT: '70000', VERBOSE: 'yes', S3_ENDPOINT: 'not a url' }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      const named = error.problems.map((problem) => problem.split(':')[0]);
      for (const variable of ['PORT', 'VERBOSE', 'NAME', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) {
        assert.ok(named.includes(variable), `${variable} named in ${error.message}`);
      }
      return true;
    },
  );
});
