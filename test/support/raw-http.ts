// Sends bytes that no HTTP client would (oversized or malformed requests) and returns the answer,
// to see what a server says to requests its HTTP parser refuses.
import { connect } from 'node:net';

export function sendRawHttp(url: string, request: string): Promise<{ statusLine: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve({ statusLine: answer.split('\r\n')[0] ?? '', body: answer.slice(answer.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
  });
}
