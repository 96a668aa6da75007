// Sends bytes that no HTTP client would (oversized or malformed requests) and returns the answer,
// to see what a server says to requests its HTTP parser refuses.
import { connect, type Socket } from 'node:net';

export function sendRawHttp(url: string, request: string): Promise<{ statusLine: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () =>
      resolve({ statusLine: answer.split('\r\n')[0] ?? '', body: answer.slice(answer.indexOf('\r\n\r\n') + 4) }),
    );
    socket.on('error', reject);
  });
}

export interface SlowLoris {
  /** Connections the server has not closed yet. */
  open(): number;
  /** Resolves when the server has closed every connection, with the status line each one got (or ''). */
  closed: Promise<string[]>;
}

/**
 * A slow-loris client: `connections` sockets, each sending a request's headers one byte per
 * `byteEveryMs` and never finishing them, until the server closes it.
 */
export async function startSlowLoris(url: string, connections: number, byteEveryMs = 500): Promise<SlowLoris> {
  const { hostname, port } = new URL(url);
  const sockets = await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port) }, () => {
            socket.off('error', reject);
            resolve(socket);
          });
          socket.once('error', reject);
        }),
    ),
  );
  let openCount = sockets.length;
  const header = Buffer.from('GET / HTTP/1.1\r\nHost: slow\r\nX-Slow: ');
  let sent = 0;
  const closed = Promise.all(
    sockets.map(
      (socket) =>
        new Promise<string>((resolve) => {
          let answer = '';
          socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
          socket.on('error', () => undefined);
          socket.on('close', () => {
            openCount -= 1;
            resolve(answer.split('\r\n')[0] ?? '');
          });
        }),
    ),
  );
  const trickle = setInterval(() => {
    const byte = sent < header.length ? header.subarray(sent, sent + 1) : Buffer.from('a');
    sent += 1;
    for (const socket of sockets) if (!socket.destroyed) socket.write(byte);
  }, byteEveryMs);
  void closed.finally(() => clearInterval(trickle));
  return { open: () => openCount, closed };
}
