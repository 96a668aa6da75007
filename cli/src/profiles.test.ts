// Where each setting comes from: flags, then KINO_* variables, then the profile, then dev.json.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { configPath, ProfileNotFoundError, readConfigFile, resolveConnection, writeConfigFile } from './profiles.ts';

const root = mkdtempSync(join(tmpdir(), 'kino-profiles-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = { XDG_CONFIG_HOME: join(root, 'config') };
const project = join(root, 'project', 'sub', 'dir');
mkdirSync(project, { recursive: true });
mkdirSync(join(root, 'project', '.kino'));
writeFileSync(
  join(root, 'project', '.kino', 'dev.json'),
  JSON.stringify({
    apiUrl: 'http://dev/v1/api',
    apiKey: 'dev-key',
    orgId: 'org_dev',
    envId: 'env_dev',
    operatorToken: 'otk_dev',
  }),
);

describe('resolveConnection', () => {
  it('falls back to the nearest .kino/dev.json above the working directory', () => {
    const { settings, sources } = resolveConnection({}, env, project);
    assert.deepEqual(settings, {
      apiUrl: 'http://dev/v1/api',
      apiKey: 'dev-key',
      orgId: 'org_dev',
      envId: 'env_dev',
      operatorToken: 'otk_dev',
    });
    assert.equal(sources.apiKey, join(root, 'project', '.kino', 'dev.json'));
    assert.deepEqual(resolveConnection({}, env, root).settings, {});
  });

  it('takes the default profile over dev.json, a named one over the default, variables over profiles, flags over all', () => {
    writeConfigFile(
      {
        defaultProfile: 'main',
        profiles: {
          main: { apiUrl: 'http://main/v1/api', apiKey: 'main-key', orgId: 'org_main' },
          other: { apiKey: 'other-key' },
        },
      },
      configPath(env),
    );
    assert.equal(statSync(configPath(env)).mode & 0o777, 0o600);
    const byDefault = resolveConnection({}, env, project);
    assert.deepEqual(byDefault.settings, {
      apiUrl: 'http://main/v1/api',
      apiKey: 'main-key',
      orgId: 'org_main',
      envId: 'env_dev',
      operatorToken: 'otk_dev',
    });
    assert.equal(byDefault.sources.orgId, 'profile main');

    assert.equal(resolveConnection({ profile: 'other' }, env, project).settings.apiKey, 'other-key');
    assert.equal(resolveConnection({}, { ...env, KINO_PROFILE: 'other' }, project).settings.apiKey, 'other-key');
    assert.equal(resolveConnection({}, { ...env, KINO_API_KEY: 'env-key' }, project).settings.apiKey, 'env-key');
    assert.equal(
      resolveConnection({ apiKey: 'flag-key' }, { ...env, KINO_API_KEY: 'env-key' }, project).settings.apiKey,
      'flag-key',
    );
    assert.throws(() => resolveConnection({ profile: 'missing' }, env, project), ProfileNotFoundError);
    assert.deepEqual(readConfigFile(configPath(env)).profiles.other, { apiKey: 'other-key' });
  });

  it('reads KINO_DEV_DIR instead of looking upward', () => {
    const devDir = join(root, 'stack');
    mkdirSync(devDir);
    writeFileSync(join(devDir, 'dev.json'), JSON.stringify({ apiUrl: 'http://stack/v1/api' }));
    const { settings } = resolveConnection({}, { XDG_CONFIG_HOME: join(root, 'none'), KINO_DEV_DIR: devDir }, project);
    assert.equal(settings.apiUrl, 'http://stack/v1/api');
    assert.equal(settings.apiKey, undefined);
  });
});
