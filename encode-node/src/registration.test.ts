import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import pino from 'pino';
import type { RegistryClient } from '@kino/proto';
import type { NodeJobs } from './node-jobs.ts';
import { Registration } from './registration.ts';

describe('Registration.registerUntilDone', () => {
  it('retries with growing waits until the registry answers, then keeps its node id', async () => {
    const calls: number[] = [];
    const registry = {
      address: 'registry.test:1',
      async register() {
        calls.push(performance.now());
        if (calls.length < 4) throw new Error('14 UNAVAILABLE: No connection established');
        return { nodeId: 'node_1', heartbeatIntervalMs: 1_000 };
      },
    } as unknown as RegistryClient;
    const registration = new Registration({
      registry,
      address: '127.0.0.1:1',
      slots: 1,
      version: 'test',
      labels: {},
      jobs: {} as NodeJobs,
      logger: pino({ level: 'silent' }),
    });
    await registration.registerUntilDone();
    assert.equal(registration.nodeId, 'node_1');
    assert.equal(calls.length, 4);
    // 250 ms, then 500 ms, then 1 s between attempts (timers fire no earlier than asked).
    const waits = calls.slice(1).map((at, i) => at - calls[i]!);
    assert.ok(waits[0]! >= 245 && waits[1]! >= 495 && waits[2]! >= 995, `waits ${waits.join(', ')}`);
  });
});
