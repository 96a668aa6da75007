import { test } from 'vitest';
import assert from 'node:assert/strict';
import { Counter, Registry, answerMetrics, startMetricsServer } from './metrics.ts';

function registryWithOneCounter(): Registry {
  const registry = new Registry();
  new Counter({ name: 'kino_test_total', help: 'A test counter.', registers: [registry] }).inc(3);
  return registry;
}

test('without a token /metrics is open; with one, only the bearer of that token reads it', async () => {
  const registry = registryWithOneCounter();
  const open = await answerMetrics(registry, undefined, undefined);
  assert.equal(open.status, 200);
  assert.match(open.headers['Content-Type']!, /^text\/plain; version=0\.0\.4/);
  assert.match(open.body, /^kino_test_total 3$/m);

  const token = 'a-metrics-token-of-some-length';
  for (const authorization of [undefined, '', 'Bearer', `Bearer ${token}x`, token, `Basic ${token}`]) {
    const refused = await answerMetrics(registry, token, authorization);
    assert.equal(refused.status, 401, String(authorization));
    assert.equal((JSON.parse(refused.body) as { code: string }).code, 'unauthorized');
    assert.doesNotMatch(refused.body, /kino_test_total/);
  }
  assert.equal((await answerMetrics(registry, token, `Bearer ${token}`)).status, 200);
});

test('the metrics server of a gRPC-only process answers GET /metrics and nothing else', async () => {
  const server = await startMetricsServer({ registry: registryWithOneCounter(), host: '127.0.0.1', port: 0 });
  try {
    const metrics = await fetch(`http://${server.address}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^kino_test_total 3$/m);
    const elsewhere = await fetch(`http://${server.address}/`);
    assert.equal(elsewhere.status, 404);
    assert.equal(((await elsewhere.json()) as { code: string }).code, 'not_found');
    assert.equal((await fetch(`http://${server.address}/metrics`, { method: 'POST' })).status, 404);
  } finally {
    await server.stop();
  }
});
