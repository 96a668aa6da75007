// fetchSource against a local HTTP server (node:http): Range resumes, HTTP errors and the size limit.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { anyAddress, fetchSource, ingestFailureReasons, SourceFetchError, type PartSink } from './fetch-source.ts';

/** An MP4-looking body: `ftyp` at bytes 4-8, random bytes after. */
function mp4Body(size: number): Buffer {
  const body = randomBytes(size);
  body.write('\0\0\0\x18ftypisom', 0, 'latin1');
  return body;
}

class MemorySink implements PartSink {
  parts = new Map<number, Buffer>();
  resets = 0;
  async writePart(partNumber: number, bytes: Buffer): Promise<void> {
    this.parts.set(partNumber, Buffer.from(bytes));
  }
  async reset(): Promise<void> {
    this.parts.clear();
    this.resets += 1;
  }
  joined(): Buffer {
    return Buffer.concat([...this.parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part));
  }
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections(); // a server still sending (a failed check) must not hold the file open
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/source.mp4`;
}

/** Serves `body` with Range support; the first full response is cut after `cutAt` bytes. */
function rangeServer(body: Buffer, cutAt: number) {
  const seen: Array<string | undefined> = [];
  let cut = false;
  return {
    seen,
    handler(request: IncomingMessage, response: ServerResponse) {
      const range = request.headers.range;
      seen.push(range);
      const match = /^bytes=(\d+)-$/.exec(range ?? '');
      const start = match ? Number(match[1]) : 0;
      response.setHeader('accept-ranges', 'bytes');
      response.setHeader('etag', '"v1"');
      if (match) {
        response.writeHead(206, {
          'content-length': body.length - start,
          'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
        });
      } else {
        response.writeHead(200, { 'content-length': body.length });
      }
      if (!cut) {
        cut = true;
        // Half the body, then the connection drops.
        response.write(body.subarray(start, cutAt), () => response.socket?.destroy());
        return;
      }
      response.end(body.subarray(start));
    },
  };
}

const partBytes = 64 * 1024;

describe('fetchSource: resuming and aborting', () => {
  test('a connection cut mid-body is resumed with Range: the stored bytes are the source, byte for byte', async () => {
    const body = mp4Body(5 * partBytes + 1234);
    const server = rangeServer(body, 2 * partBytes + 777);
    const url = await serve(server.handler);
    const sink = new MemorySink();
    const result = await fetchSource({ url, sink, maxBytes: 10 * 1024 ** 2, partBytes, destination: anyAddress() });
    expect(result).toMatchObject({ sizeBytes: body.length, parts: 6, resumes: 1, restarted: false });
    expect(server.seen[0]).toBeUndefined();
    // Resumed from the byte reached, not from a part boundary: the buffered bytes were kept.
    expect(server.seen[1]).toBe(`bytes=${2 * partBytes + 777}-`);
    expect(sink.resets).toBe(0);
    expect(sink.joined().equals(body)).toBe(true);
  });

  test('a server without Range support is fetched again from byte 0 after a cut, and the result is still the source', async () => {
    const body = mp4Body(3 * partBytes + 10);
    let cut = false;
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': body.length });
      if (!cut) {
        cut = true;
        response.write(body.subarray(0, 2 * partBytes + 5), () => response.socket?.destroy());
        return;
      }
      response.end(body);
    });
    const sink = new MemorySink();
    const result = await fetchSource({ url, sink, maxBytes: 10 * 1024 ** 2, partBytes, destination: anyAddress() });
    expect(result).toMatchObject({ sizeBytes: body.length, resumes: 1, restarted: true });
    expect(sink.resets).toBe(1);
    expect(sink.joined().equals(body)).toBe(true);
  });

  test('a later attempt resumes after the parts an earlier one stored', async () => {
    const body = mp4Body(4 * partBytes + 99);
    const server = rangeServer(body, body.length); // never cut short
    const url = await serve(server.handler);
    const sink = new MemorySink();
    await sink.writePart(1, body.subarray(0, partBytes));
    await sink.writePart(2, body.subarray(partBytes, 2 * partBytes));
    const result = await fetchSource({
      url,
      sink,
      maxBytes: 10 * 1024 ** 2,
      partBytes,
      destination: anyAddress(),
      storedParts: 2,
      validator: '"v1"',
    });
    expect(server.seen[0]).toBe(`bytes=${2 * partBytes}-`);
    expect(result).toMatchObject({ sizeBytes: body.length, parts: 5 });
    expect(sink.joined().equals(body)).toBe(true);
  });

  test("an aborted fetch stops with the signal's reason, mid-body or before an answer, and does not resume", async () => {
    const body = mp4Body(3 * partBytes);
    let requests = 0;
    const url = await serve((_request, response) => {
      requests += 1;
      // One part and a little more, then nothing: the fetch waits on the rest.
      response.writeHead(200, { 'content-length': body.length });
      response.write(body.subarray(0, partBytes + 10));
    });
    const sink = new MemorySink();
    const controller = new AbortController();
    const stopped = new Error('the video was deleted');
    const fetching = fetchSource({
      url,
      sink,
      maxBytes: 10 * 1024 ** 2,
      partBytes,
      destination: anyAddress(),
      signal: controller.signal,
      onProgress: () => controller.abort(stopped),
    });
    await expect(fetching).rejects.toBe(stopped);
    expect(requests).toBe(1);
    expect(sink.parts.size).toBe(1);
    await expect(
      fetchSource({
        url,
        sink,
        maxBytes: 10 * 1024 ** 2,
        partBytes,
        destination: anyAddress(),
        signal: controller.signal,
      }),
    ).rejects.toBe(stopped);
    expect(requests).toBe(1);
  });
});

describe('fetchSource: statuses, limits, containers and redirects', () => {
  test('a 404 fails at once, final, naming the status', async () => {
    let requests = 0;
    const url = await serve((_request, response) => {
      requests += 1;
      response.writeHead(404).end('not here');
    });
    const error = await fetchSource({
      url,
      sink: new MemorySink(),
      maxBytes: 1024 ** 2,
      partBytes,
      destination: anyAddress(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceFetchError);
    expect(error).toMatchObject({ reason: ingestFailureReasons.httpError, final: true });
    expect((error as Error).message).toBe('source_http_error: the source URL answered 404');
    expect(requests).toBe(1);
  });

  test('a 503 is not final (the activity retries it)', async () => {
    const url = await serve((_request, response) => void response.writeHead(503).end());
    const error = await fetchSource({
      url,
      sink: new MemorySink(),
      maxBytes: 1024 ** 2,
      partBytes,
      destination: anyAddress(),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: ingestFailureReasons.httpError, final: false });
  });

  // A fetch that misses the limit waits on a body that never ends: the timeout turns that into a failure.
  test('a declared Content-Length over the limit fails before any byte is stored', { timeout: 10_000 }, async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': 6 * 1024 ** 3 });
      response.write(mp4Body(1024));
      // The rest never comes: the fetch must not wait for it.
    });
    const sink = new MemorySink();
    const error = await fetchSource({ url, sink, maxBytes: 5 * 1024 ** 3, partBytes, destination: anyAddress() }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ reason: ingestFailureReasons.tooLarge, final: true });
    expect((error as Error).message).toContain('declares 6442450944 bytes');
    expect(sink.parts.size).toBe(0);
  });

  test(
    'a body streamed past the limit without a declared length fails once the limit is passed',
    { timeout: 10_000 },
    async () => {
      const maxBytes = 3 * partBytes;
      const url = await serve((_request, response) => {
        response.writeHead(200); // chunked: no Content-Length
        response.write(mp4Body(partBytes));
        // Keep sending until the client hangs up.
        const more = () => {
          if (response.destroyed) return;
          response.write(randomBytes(partBytes), more);
        };
        more();
      });
      const sink = new MemorySink();
      const error = await fetchSource({ url, sink, maxBytes, partBytes, destination: anyAddress() }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ reason: ingestFailureReasons.tooLarge, final: true });
      expect((error as Error).message).toContain('sent more than');
      expect(sink.parts.size).toBeLessThanOrEqual(3);
    },
  );

  test('a body that opens no accepted container fails as unsupported', async () => {
    const url = await serve(
      (_request, response) =>
        void response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html>not a video</html>'),
    );
    const error = await fetchSource({
      url,
      sink: new MemorySink(),
      maxBytes: 1024 ** 2,
      partBytes,
      destination: anyAddress(),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: ingestFailureReasons.unsupportedFormat, final: true });
  });

  test('redirects are followed, each host through the destination check', async () => {
    const body = mp4Body(1000);
    const target = await serve(
      (_request, response) => void response.writeHead(200, { 'content-length': body.length }).end(body),
    );
    const url = await serve((_request, response) => void response.writeHead(302, { location: target }).end());
    const checked: string[] = [];
    const agent = anyAddress();
    const sink = new MemorySink();
    await fetchSource({
      url,
      sink,
      maxBytes: 1024 ** 2,
      partBytes,
      destination: async (u) => (checked.push(u.href), agent(u)),
    });
    expect(checked).toEqual([url, target]);
    expect(sink.joined().equals(body)).toBe(true);
  });
});
