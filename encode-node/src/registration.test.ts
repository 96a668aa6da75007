import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import pino from 'pino';
import { PassThrough } from 'node:stream';
import type { NodeConnection, RegisterResponse__Output, RegistryClient } from '@kino/proto';
import { NodeJobs } from './node-jobs.ts';
import { Registration } from './registration.ts';

/** A connection the registry welcomed with `welcome`, open until the test ends. */
function connectionOf(welcome: Partial<RegisterResponse__Output>): NodeConnection {
  return {
    welcome: { relayAddress: '127.0.0.1:1', wasGone: false, ...welcome } as RegisterResponse__Output,
    tunnel: new PassThrough(),
    ended: new Promise(() => {}),
    close: () => {},
  };
}

/** A node of one slot registering with `registry`, its running jobs `jobs`. */
function registrationOf(registry: RegistryClient, jobs: NodeJobs): Registration {
  return new Registration({
    registry,
    serve: () => {},
    slots: 1,
    version: 'test',
    labels: {},
    encoders: ['libx264'],
    qualityFfmpeg: false,
    jobs,
    logger: pino({ level: 'silent' }),
  });
}

describe('Registration.registerUntilDone', () => {
  it('retries with growing waits until the registry answers, then keeps its node id', async () => {
    const calls: number[] = [];
    const registry = {
      address: 'registry.test:1',
      async connect() {
        calls.push(performance.now());
        if (calls.length < 4) throw new Error('14 UNAVAILABLE: No connection established');
        return connectionOf({ nodeId: 'node_1', heartbeatIntervalMs: 1_000 });
      },
    } as unknown as RegistryClient;
    const registration = registrationOf(registry, {} as NodeJobs);
    await registration.registerUntilDone();
    assert.equal(registration.nodeId, 'node_1');
    assert.equal(calls.length, 4);
    // 250 ms, then 500 ms, then 1 s between attempts (timers fire no earlier than asked).
    const waits = calls.slice(1).map((at, i) => at - calls[i]!);
    assert.ok(waits[0]! >= 245 && waits[1]! >= 495 && waits[2]! >= 995, `waits ${waits.join(', ')}`);
  });
});

describe('Registration heartbeats', () => {
  it('a heartbeat the registry does not know (the node was marked gone: it hung) abandons the running jobs, then registers again', async () => {
    const jobs = new NodeJobs(1);
    const encode = jobs.startEncode('vid_1-a7-01234567');
    let heartbeats = 0;
    const registry = {
      connect: () => Promise.resolve(connectionOf({ nodeId: 'node_1', heartbeatIntervalMs: 10 })),
      heartbeat: () => Promise.resolve({ known: ++heartbeats > 1 }),
    } as unknown as RegistryClient;
    const registration = registrationOf(registry, jobs);
    await registration.registerUntilDone();
    registration.start();
    while (heartbeats < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await registration.stop();
    assert.equal(encode.abandoned.aborted, true, 'its work moved on: nothing of it is written late');
  });

  it('a heartbeat that fails with its connection open keeps the connection (the calls in it go on) and tries again', async () => {
    const jobs = new NodeJobs(1);
    const encode = jobs.startEncode('vid_1-a7-01234567');
    let connects = 0;
    let heartbeats = 0;
    const registry = {
      connect: () => {
        connects += 1;
        return Promise.resolve(connectionOf({ nodeId: 'node_1', heartbeatIntervalMs: 10 }));
      },
      heartbeat: () =>
        ++heartbeats === 1 ? Promise.reject(new Error('4 DEADLINE_EXCEEDED')) : Promise.resolve({ known: true }),
    } as unknown as RegistryClient;
    const registration = registrationOf(registry, jobs);
    await registration.registerUntilDone();
    registration.start();
    while (heartbeats < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await registration.stop();
    assert.equal(connects, 1, 'one connection all along');
    assert.equal(encode.abandoned.aborted, false);
  });

  it('a connection that ended during a hang connects again; a welcome saying the id was gone abandons the running jobs', async () => {
    const jobs = new NodeJobs(1);
    const encode = jobs.startEncode('vid_1-a7-01234567');
    let connects = 0;
    let endFirst = () => {};
    const registry = {
      connect: () => {
        connects += 1;
        const connection = connectionOf({ nodeId: 'node_1', heartbeatIntervalMs: 10, wasGone: connects > 1 });
        if (connects > 1) return Promise.resolve(connection);
        return Promise.resolve({ ...connection, ended: new Promise<void>((resolve) => (endFirst = resolve)) });
      },
      heartbeat: () => Promise.resolve({ known: true }),
    } as unknown as RegistryClient;
    const registration = registrationOf(registry, jobs);
    await registration.registerUntilDone();
    assert.equal(encode.abandoned.aborted, false, 'registered as a new node: its jobs are its own');
    registration.start();
    // The registry's keepalive closed the connection of the node that hung.
    endFirst();
    while (connects < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await registration.stop();
    assert.equal(encode.abandoned.aborted, true, 'its work moved on while it hung: nothing of it is written late');
  });
});

describe('Registration connections', () => {
  it('connects again at once when its connection ends, and serves each connection it gets', async () => {
    const ends: Array<() => void> = [];
    const served: unknown[] = [];
    const registry = {
      connect: () => {
        const connection = connectionOf({ nodeId: 'node_1', heartbeatIntervalMs: 60_000 });
        return Promise.resolve({ ...connection, ended: new Promise<void>((resolve) => ends.push(resolve)) });
      },
      heartbeat: () => Promise.resolve({ known: true }),
    } as unknown as RegistryClient;
    const registration = new Registration({
      registry,
      serve: (tunnel) => served.push(tunnel),
      slots: 1,
      version: 'test',
      labels: {},
      encoders: [],
      qualityFfmpeg: false,
      jobs: new NodeJobs(1),
      logger: pino({ level: 'silent' }),
    });
    await registration.registerUntilDone();
    registration.start();
    // The heartbeat interval is a minute: only the connection ending makes it connect again.
    ends[0]!();
    while (ends.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await registration.stop();
    assert.equal(served.length, 2, 'both tunnels served');
  });
});
