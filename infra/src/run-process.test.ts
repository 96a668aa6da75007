import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { describe, it } from 'vitest';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./run-process.fixture.ts', import.meta.url));

interface Fixture {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** Resolves once the output holds `text`; rejects if the process exits first. */
  printed(text: string): Promise<void>;
}

function runFixture(env: Record<string, string>): Fixture {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (output.includes(text) ? resolve() : waiters.push(check));
      void exited.then((code) => reject(new Error(`exited ${code} before printing "${text}": ${output}`)));
      check();
    });
  return { child, output: () => output, exited, printed };
}

describe('runProcess', () => {
  it('stops gracefully on SIGTERM and exits 0', async () => {
    const run = runFixture({});
    await run.printed('started');
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
    assert.match(run.output(), /stop called/);
  });

  it('exits 130 at once on a second SIGINT while stopping', async () => {
    const run = runFixture({ FIXTURE_STOP: 'hang' });
    await run.printed('started');
    run.child.kill('SIGINT');
    await run.printed('stop called');
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 130);
  });

  it('exits 1 when the stop fails', async () => {
    const run = runFixture({ FIXTURE_STOP: 'fail' });
    await run.printed('started');
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 1);
  });

  it('exits 1 when the start fails', async () => {
    const run = runFixture({ FIXTURE_START: 'fail' });
    assert.equal(await run.exited, 1);
    assert.doesNotMatch(run.output(), /started/);
  });

  it('exits 1 when the work ends in an error without being asked to stop', async () => {
    const run = runFixture({ FIXTURE_FINISH: 'reject' });
    assert.equal(await run.exited, 1);
    assert.doesNotMatch(run.output(), /stop called/);
  });
});
