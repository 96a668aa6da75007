// The relay against a real grpc-js EncodeService server run over an in-memory connection (as a node
// runs it over its tunnel), called by the real EncodeClient: answers, streams, the node's failures,
// cancellation, a node not connected here, and a connection that ends mid-call.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { duplexPair } from 'node:stream';
import pino from 'pino';
import {
  GrpcStatus,
  NodeJobFailure,
  createEncodeClient,
  encodeServiceDefinition,
  grpc,
  isServiceError,
  jobFailureStatus,
  type EncodeServiceHandlers,
} from '@kino/proto';
import { startRelay, type Relay } from './relay.ts';

const token = 'farm-token';
let relay: Relay;
let server: grpc.Server;
let cancelled: () => void;
const wasCancelled = new Promise<void>((resolve) => (cancelled = resolve));

/** The node's side: a handler per case, keyed by the request's job id. */
const handlers = {
  Probe(call, callback) {
    if (call.request.jobId === 'fails') callback(jobFailureStatus('INVALID_SOURCE', 'not a video'));
    else callback(null, { durationSeconds: 12.5, width: 640, height: 360 });
  },
  Encode(call) {
    if (call.request.jobId === 'waits') {
      call.write({ progress: { percent: 1 } });
      call.on('cancelled', () => cancelled());
      return;
    }
    for (const percent of [10, 50, 100]) call.write({ progress: { percent } });
    call.write({ done: { renditions: [] } });
    call.end();
  },
  RaisePriority(call, callback) {
    callback(null, { running: call.metadata.get('x-kino-token')[0] === token });
  },
  Thumbnail(_call, callback) {
    callback({ code: GrpcStatus.UNIMPLEMENTED });
  },
  Storyboard(_call, callback) {
    callback({ code: GrpcStatus.UNIMPLEMENTED });
  },
  Transcribe(_call, callback) {
    callback({ code: GrpcStatus.UNIMPLEMENTED });
  },
} satisfies EncodeServiceHandlers;

/** A node connected to the relay: its server on one end of an in-memory connection, the relay on the other. */
function connectNode(nodeId: string) {
  const [nodeEnd, relayEnd] = duplexPair();
  server.createConnectionInjector(grpc.ServerCredentials.createInsecure()).injectConnection(nodeEnd);
  return { session: relay.attach(nodeId, relayEnd), relayEnd, nodeEnd };
}

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(encodeServiceDefinition, handlers);
  relay = await startRelay({ host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
});

afterAll(async () => {
  await relay?.close();
  server?.forceShutdown();
});

describe('the node relay', () => {
  it('forwards unary calls and streams with their metadata, and the node failures with their reason', async () => {
    connectNode('node_a');
    const client = createEncodeClient(relay.address, token, 'node_a');
    try {
      assert.deepEqual(await client.raisePriority({ jobId: 'x' }), { running: true }, 'the token reached the node');
      const probe = await client.probe({ jobId: 'ok', inputUrl: 'http://x' });
      assert.equal(probe.durationSeconds, 12.5);
      const progress: number[] = [];
      const done = await client.encode({ jobId: 'enc' }, { onProgress: (p) => progress.push(p.percent) });
      assert.deepEqual(progress, [10, 50, 100]);
      assert.deepEqual(done.renditions, []);
      await assert.rejects(
        client.probe({ jobId: 'fails', inputUrl: 'http://x' }),
        (error: unknown) => error instanceof NodeJobFailure && error.reason === 'INVALID_SOURCE',
      );
    } finally {
      client.close();
    }
  });

  it("cancels the node's call when the caller cancels", async () => {
    connectNode('node_b');
    const client = createEncodeClient(relay.address, token, 'node_b');
    const controller = new AbortController();
    try {
      const encode = client.encode(
        { jobId: 'waits' },
        { signal: controller.signal, onProgress: () => controller.abort() },
      );
      await assert.rejects(encode, (error: unknown) => isServiceError(error) && error.code === GrpcStatus.CANCELLED);
      await wasCancelled;
    } finally {
      client.close();
    }
  });

  it('answers UNAVAILABLE, without a node failure, for a node not connected here or whose connection ends mid-call', async () => {
    const stranger = createEncodeClient(relay.address, token, 'node_elsewhere');
    const { relayEnd, nodeEnd } = connectNode('node_c');
    const client = createEncodeClient(relay.address, token, 'node_c');
    const lost = (error: unknown) =>
      isServiceError(error) && !(error instanceof NodeJobFailure) && error.code === GrpcStatus.UNAVAILABLE;
    try {
      await assert.rejects(stranger.probe({ jobId: 'ok', inputUrl: 'http://x' }), lost);
      // As the tunnels at both ends do when the node's stream ends (proto/src/tunnel.ts).
      const encode = client.encode(
        { jobId: 'waits' },
        {
          onProgress: () => {
            relayEnd.destroy();
            nodeEnd.destroy();
          },
        },
      );
      await assert.rejects(encode, lost);
    } finally {
      stranger.close();
      client.close();
    }
  });

  it("ends a node's connection on disconnect (a revoked node): its calls fail as a lost node's", async () => {
    const { session } = connectNode('node_d');
    const client = createEncodeClient(relay.address, token, 'node_d');
    try {
      assert.equal((await client.probe({ jobId: 'ok', inputUrl: 'http://x' })).durationSeconds, 12.5);
      assert.equal(relay.disconnect('node_d'), true);
      assert.equal(session.destroyed, true);
      await assert.rejects(
        client.probe({ jobId: 'ok', inputUrl: 'http://x' }),
        (error: unknown) => isServiceError(error) && error.code === GrpcStatus.UNAVAILABLE,
      );
      assert.equal(relay.disconnect('node_elsewhere'), false);
    } finally {
      client.close();
    }
  });
});
