// Uploads are timed by progress, not by their total duration: against real local HTTP servers that
// stand in for storage on a slow link (reading the body slowly) and on a dead one (not reading).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, it } from 'vitest';
import { APIConnectionTimeoutError, Kino } from '../index.ts';

const timeoutMs = 1000;

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/kino/uploads/a.mp4?X-Amz-Signature=abc`,
  };
}

function client(): Kino {
  return new Kino({ apiUrl: 'http://api.test/v1/api', apiKey: `svc_test_${'a'.repeat(32)}`, timeoutMs, maxRetries: 0 });
}

describe('uploads', () => {
  it('finish on a link slower than the request timeout in total, as long as bytes keep moving', async () => {
    // Storage that reads 4 MB a second: 8 MiB take at least 2 s, twice the timeout, yet the
    // longest wait between two chunks is a few tens of milliseconds.
    const bytesPerMs = 4000;
    let received = 0;
    let requests = 0;
    const { url } = await listen((request, response) => {
      requests += 1;
      request.on('data', (chunk: Buffer) => {
        received += chunk.length;
        request.pause();
        setTimeout(() => request.resume(), chunk.length / bytesPerMs);
      });
      request.on('end', () => response.end());
    });
    const size = 8 * 1024 * 1024;

    const started = performance.now();
    await client().uploads.putFile({ signedURL: url }, new Uint8Array(size));
    const elapsed = performance.now() - started;

    assert.equal(received, size);
    assert.equal(requests, 1);
    assert.ok(
      elapsed > timeoutMs,
      `the upload took ${Math.round(elapsed)} ms, no longer than the timeout: the link was not slow`,
    );
  });

  it('fail with a timeout error once storage has taken no bytes for the timeout', async () => {
    // Storage that accepts the connection and never reads: the client fills the socket buffers
    // (a few MiB on loopback), then nothing moves.
    let requests = 0;
    const { url } = await listen((request) => {
      requests += 1;
      request.pause();
    });

    const started = performance.now();
    await assert.rejects(
      client().uploads.putFile({ signedURL: url }, new Uint8Array(32 * 1024 * 1024)),
      (error: unknown) => {
        assert.ok(error instanceof APIConnectionTimeoutError, String(error));
        assert.match(error.message, new RegExp(`no progress for ${timeoutMs} ms`));
        assert.doesNotMatch(error.message, /Signature/, 'the signed URL stays out of the message');
        return true;
      },
    );
    assert.ok(performance.now() - started >= timeoutMs);
    assert.equal(requests, 1);
  });
});
