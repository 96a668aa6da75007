import { expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, freePortBase } from './ports.ts';

test('a port handed out here is not handed out by another process of the machine meanwhile', async () => {
  // Claims of their own, so that the thousands this test makes keep no port from the suite's stacks.
  const claims = mkdtempSync(join(tmpdir(), 'kino-port-claims-test-'));
  process.env.KINO_PORT_CLAIMS_DIR = claims;
  try {
    const mine = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    // Another process asks for ports from the same range: none of them is one of this process's.
    const other = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(new URL('./ports.ts', import.meta.url).href)}).then(async (m) => { const ports = []; for (let i = 0; i < 2000; i++) ports.push(await m.freePort()); console.log(JSON.stringify(ports)); })`,
      ],
      { encoding: 'utf8', env: { ...process.env, KINO_PORT_CLAIMS_DIR: claims } },
    );
    expect(other.status, other.stderr).toBe(0);
    const theirs = new Set<number>(JSON.parse(other.stdout) as number[]);
    expect(mine.filter((port) => theirs.has(port))).toEqual([]);
    const base = await freePortBase([0, 1, 2]);
    expect([base, base + 1, base + 2].some((port) => theirs.has(port) || mine.includes(port))).toBe(false);
  } finally {
    delete process.env.KINO_PORT_CLAIMS_DIR;
    rmSync(claims, { recursive: true, force: true });
  }
});
