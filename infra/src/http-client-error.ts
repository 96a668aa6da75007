// What an HTTP server answers to a request Node's parser refuses before any handler sees it
// (headers or URL larger than Node's limit, a malformed request line, a client too slow to send its
// headers): the spec's error envelope with a named code, like every other error. Both the API
// (Fastify's `clientErrorHandler`) and delivery (`server.on('clientError')`) answer through this.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope } from '@kino/proto/contract';

/** The status and named condition of a parser error. */
export function clientErrorCondition(error: Error & { code?: string }): {
  status: number;
  code: string;
  detail: string;
} {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'headers_too_large',
        detail: 'The request line and headers are larger than this server accepts (16 KB).',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, code: 'request_timeout', detail: 'The request was not received in time.' };
    default:
      return { status: 400, code: 'malformed_request', detail: 'The request is not valid HTTP.' };
  }
}

/** Node's `clientError` listener: writes the envelope and closes the connection. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, code, detail } = clientErrorCondition(error);
    const body = JSON.stringify(errorEnvelope(status, code, detail));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
