import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminDatabaseError, resolveAdminDatabaseUrl } from './admin.ts';

describe('the admin commands database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kino-admin-'));
  const devJson = join(dir, 'dev.json');

  it('is DATABASE_URL when set', () => {
    writeFileSync(devJson, JSON.stringify({ databaseUrl: 'postgres://dev' }));
    assert.equal(resolveAdminDatabaseUrl({ DATABASE_URL: 'postgres://explicit' }, devJson), 'postgres://explicit');
  });

  it("is the dev stack's databaseUrl from .kino/dev.json otherwise", () => {
    writeFileSync(devJson, JSON.stringify({ apiUrl: 'http://x/v1/api', databaseUrl: 'postgres://dev' }));
    assert.equal(resolveAdminDatabaseUrl({}, devJson), 'postgres://dev');
  });

  it("is the databaseUrl of the dev stack in KINO_DEV_DIR when that is set (a second stack's)", () => {
    const second = mkdtempSync(join(tmpdir(), 'kino-admin-second-'));
    writeFileSync(join(second, 'dev.json'), JSON.stringify({ databaseUrl: 'postgres://second' }));
    try {
      assert.equal(resolveAdminDatabaseUrl({ KINO_DEV_DIR: second }), 'postgres://second');
      assert.equal(
        resolveAdminDatabaseUrl({ KINO_DEV_DIR: second, DATABASE_URL: 'postgres://explicit' }),
        'postgres://explicit',
      );
    } finally {
      rmSync(second, { recursive: true, force: true });
    }
  });

  it('says what to do when there is none', () => {
    rmSync(devJson, { force: true });
    assert.throws(
      () => resolveAdminDatabaseUrl({}, devJson),
      (error: Error) => {
        assert.ok(error instanceof AdminDatabaseError);
        assert.match(error.message, /DATABASE_URL/);
        assert.match(error.message, /npm run dev/);
        return true;
      },
    );
    writeFileSync(devJson, JSON.stringify({ apiUrl: 'http://x/v1/api' }));
    assert.throws(() => resolveAdminDatabaseUrl({}, devJson), /names no databaseUrl/);
    writeFileSync(devJson, '{not json');
    assert.throws(() => resolveAdminDatabaseUrl({}, devJson), /not valid JSON/);
    rmSync(dir, { recursive: true, force: true });
  });
});
