import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { transform, UnknownConstruct } from './node-test-to-vitest.mjs';

const convert = (source) => transform(source, 'sample.test.ts');
const from = "from 'node:test'";

describe('node:test -> vitest codemod', () => {
  it('renames the hooks and keeps a local variable of the same name', () => {
    const source = [
      `import { after, before, describe, it } ${from};`,
      "import assert from 'node:assert/strict';",
      'before(async () => { await start(); }, { timeout: 60_000 });',
      'after(() => stop());',
      "describe('x', () => {",
      "  it('y', () => { const before = 1; assert.equal(before, 1); });",
      '});',
      '',
    ].join('\n');
    assert.equal(convert(source), [
      "import { afterAll, beforeAll, describe, it } from 'vitest';",
      "import assert from 'node:assert/strict';",
      'beforeAll(async () => { await start(); }, 60_000);',
      'afterAll(() => stop());',
      "describe('x', () => {",
      "  it('y', () => { const before = 1; assert.equal(before, 1); });",
      '});',
      '',
    ].join('\n'));
  });

  it('keeps { timeout }, turns concurrency into concurrent and drops concurrency 1', () => {
    const source = [
      `import { describe, it, test } ${from};`,
      "describe('a', { concurrency: true }, () => {});",
      "describe('b', { concurrency: 1 }, () => {});",
      "it('c', { timeout: 600_000 }, async () => {});",
      "test('d', { timeout: 5, concurrency: false }, () => {});",
      '',
    ].join('\n');
    assert.equal(convert(source), [
      "import { describe, it, test } from 'vitest';",
      "describe('a', { concurrent: true }, () => {});",
      "describe('b', () => {});",
      "it('c', { timeout: 600_000 }, async () => {});",
      "test('d', { timeout: 5 }, () => {});",
      '',
    ].join('\n'));
  });

  it('converts the test context and mocks', () => {
    const source = [
      `import { mock, test } ${from};`,
      "test('ctx', async (t) => {",
      '  t.after(() => cleanup());',
      '  const f = t.mock.fn(() => 1);',
      '  const g = mock.fn();',
      "  mock.method(console, 'log', () => {});",
      "  mock.timers.enable({ apis: ['Date'], now: 0 });",
      '  mock.timers.tick(10);',
      '  mock.timers.reset();',
      '  if (!t.signal.aborted) t.skip(t.name);',
      '  return [f.mock.callCount(), g.mock.calls[0].arguments];',
      '});',
      '',
    ].join('\n');
    assert.equal(convert(source), [
      "import { vi, test } from 'vitest';",
      "test('ctx', async (t) => {",
      '  t.onTestFinished(() => cleanup());',
      '  const f = vi.fn(() => 1);',
      '  const g = vi.fn();',
      "  vi.spyOn(console, 'log').mockImplementation(() => {});",
      "  vi.useFakeTimers({ toFake: ['Date'], now: 0 });",
      '  vi.advanceTimersByTime(10);',
      '  vi.useRealTimers();',
      '  if (!t.signal.aborted) t.skip(t.task.name);',
      '  return [f.mock.calls.length, g.mock.calls[0]];',
      '});',
      '',
    ].join('\n'));
  });

  it('takes test.mock for the mock tracker it is', () => {
    const source = `import { test } ${from};\ntest('x', () => { const f = test.mock.fn(); f(); });\n`;
    assert.equal(convert(source), "import { test, vi } from 'vitest';\ntest('x', () => { const f = vi.fn(); f(); });\n");
  });

  it('keeps an alias and joins an existing vitest import', () => {
    const source = [`import { before as setup } ${from};`, "import { it } from 'vitest';", 'setup(() => {});', ''].join('\n');
    assert.equal(convert(source), ["import { it, beforeAll as setup } from 'vitest';", 'setup(() => {});', ''].join('\n'));
  });

  it('is idempotent: converted code and code without node:test stay as they are', () => {
    const once = convert(`import { before, it } ${from};\nbefore(() => {});\nit('x', { timeout: 1 }, () => {});\n`);
    assert.equal(convert(once), once);
  });

  it('fails loudly, naming the line, on what it cannot convert', () => {
    const cases = [
      [`import test ${from};`, /default import/],
      [`import * as nt ${from};`, /namespace import/],
      [`import { snapshot } ${from};`, /without a conversion/],
      [`import { test } ${from};\ntest('x', async (t) => { await t.test('sub', () => {}); });`, /:2: test context member `test`/],
      [`import { test } ${from};\ntest('x', (t, done) => done());`, /done-callback/],
      [`import { test } ${from};\ntest('x', { plan: 2 }, () => {});`, /test option `plan`/],
      [`import { before } ${from};\nbefore((t) => {});`, /hook using its context/],
      [`import { mock } ${from};\nmock.module('x');`, /`mock.module` use/],
      [`import { test } ${from};\ntest.describe('x', () => {});`, /`test.describe`/],
      ["const nt = await import('node:test');", /loaded dynamically/],
    ];
    for (const [source, message] of cases) {
      assert.throws(() => convert(source), (error) => error instanceof UnknownConstruct && message.test(error.message), source);
    }
  });
});
