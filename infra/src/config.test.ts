import { test } from 'vitest';
import assert from 'node:assert/strict';
import { checkConfig, ConfigError, env, parseConfig, storageConfigShape, z, type CrossCheck } from './config.ts';

const shape = { PORT: env.port(7080), ORIGINS: env.list().optional(), VERBOSE: env.bool(false), NAME: z.string() };

test('defaults apply, lists split, booleans parse, empty strings count as unset', () => {
  const config = parseConfig(shape, {
    NAME: 'kino',
    ORIGINS: 'https://a.example, https://b.example',
    VERBOSE: '1',
    PORT: '',
  });
  assert.deepEqual(config, {
    PORT: 7080,
    ORIGINS: ['https://a.example', 'https://b.example'],
    VERBOSE: true,
    NAME: 'kino',
  });
});

test('every wrong or missing value is named by its variable', () => {
  assert.throws(
    () => parseConfig({ ...shape, ...storageConfigShape }, { PORT: '70000', VERBOSE: 'yes', S3_ENDPOINT: 'not a url' }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      const named = error.problems.map((problem) => problem.split(':')[0]);
      for (const variable of [
        'PORT',
        'VERBOSE',
        'NAME',
        'S3_ENDPOINT',
        'S3_BUCKET',
        'S3_ACCESS_KEY_ID',
        'S3_SECRET_ACCESS_KEY',
      ]) {
        assert.ok(named.includes(variable), `${variable} named in ${error.message}`);
      }
      return true;
    },
  );
});

test("cross checks are reported with the shape's problems, all in one error", () => {
  const requiresName: CrossCheck = (values) =>
    values.VERBOSE && !values.NAME ? ['NAME: required when VERBOSE is set'] : [];
  assert.throws(
    () => parseConfig(shape, { PORT: 'x', VERBOSE: '1' }, [requiresName]),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.problems.map((problem) => problem.split(':')[0]).sort(), ['NAME', 'NAME', 'PORT']);
      assert.ok(error.problems.includes('NAME: required when VERBOSE is set'));
      return true;
    },
  );
  assert.equal(parseConfig(shape, { NAME: 'kino', VERBOSE: '1' }, [requiresName]).NAME, 'kino');
});

test('a check names every problem and lists the variables read, secrets and URL passwords redacted', () => {
  const secretShape = { ...shape, DATABASE_URL: z.string(), API_TOKEN: z.string(), S3_SECRET_ACCESS_KEY: z.string() };
  const parse = (source: Record<string, string | undefined>) => parseConfig(secretShape, source);
  const failed = checkConfig('test', secretShape, parse, { PORT: 'seventy', API_TOKEN: 'hunter2hunter2' });
  assert.equal(failed.ok, false);
  assert.deepEqual(failed.problems.map((problem) => problem.split(':')[0]).sort(), [
    'DATABASE_URL',
    'NAME',
    'PORT',
    'S3_SECRET_ACCESS_KEY',
  ]);

  const passed = checkConfig('test', secretShape, parse, {
    NAME: 'kino',
    DATABASE_URL: 'postgres://kino:pa55word@db:5432/kino',
    API_TOKEN: 'hunter2hunter2',
    S3_SECRET_ACCESS_KEY: 'very-secret',
    UNRELATED: 'not read',
  });
  assert.deepEqual(passed, {
    process: 'test',
    ok: true,
    problems: [],
    variables: [
      { name: 'PORT', value: null },
      { name: 'ORIGINS', value: null },
      { name: 'VERBOSE', value: null },
      { name: 'NAME', value: 'kino' },
      { name: 'DATABASE_URL', value: 'postgres://kino:redacted@db:5432/kino' },
      { name: 'API_TOKEN', value: '(set, redacted)' },
      { name: 'S3_SECRET_ACCESS_KEY', value: '(set, redacted)' },
    ],
  });
});

test("a value still at the deployment files' example (change-me, or a key spelling text) is refused, named, once", () => {
  const secretShape = {
    DATABASE_URL: z.string(),
    NODE_TOKEN: z.string().min(8),
    KINO_KEY_ENCRYPTION_KEY: z.string().refine((value) => Buffer.from(value, 'base64').length === 32, 'not 32 bytes'),
  };
  const example = {
    DATABASE_URL: 'postgres://kino:change-me-postgres-password@postgres:5432/kino',
    NODE_TOKEN: 'CHANGE-ME',
    KINO_KEY_ENCRYPTION_KEY: 'change-me-openssl-rand-base64-32',
  };
  assert.throws(
    () => parseConfig(secretShape, example),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(
        error.problems.map((problem) => problem.split(':')[0]),
        ['DATABASE_URL', 'NODE_TOKEN', 'KINO_KEY_ENCRYPTION_KEY'],
      );
      assert.match(error.problems[0]!, /still the example value/);
      return true;
    },
  );
  // The key the earlier example published: valid base64 of 32 bytes, all printable text.
  const publishedKey = Buffer.from('example-key-for-trying-only-32by').toString('base64');
  assert.throws(() => parseConfig(secretShape, { ...example, KINO_KEY_ENCRYPTION_KEY: publishedKey }), ConfigError);
  const generated = {
    DATABASE_URL: 'postgres://kino:3f9c2a@postgres:5432/kino',
    NODE_TOKEN: 'tSx1m6QmE3b1',
    KINO_KEY_ENCRYPTION_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37) % 256)).toString('base64'),
  };
  assert.deepEqual(parseConfig(secretShape, generated), generated);
});
