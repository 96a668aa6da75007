// The two ends of a node's Connect stream as one byte stream each: an HTTP/2 connection runs inside
// it, the node's gRPC server on one end (grpc-js `createConnectionInjector`), the orchestrator's relay
// on the other (node:http2 `connect` with `createConnection`). Each direction's bytes ride in the
// `tunnel` frames of the stream; the other frames (hello, welcome) are the caller's to read.
// Backpressure holds both ways: a write completes when gRPC has taken the frame, and a full read
// side pauses the gRPC stream.
import { Duplex } from 'node:stream';

/** Either end of a Connect stream, as grpc-js gives it: frames in, frames out. */
export interface FrameStream<Out> {
  write(frame: Out, callback: (error?: Error | null) => void): boolean;
  end(): void;
  pause(): unknown;
  resume(): unknown;
  on(event: 'data', listener: (frame: { tunnel?: Buffer }) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * The tunnel inside `frames`: what is written to it goes out as `{ tunnel: bytes }` frames, and the
 * tunnel bytes that arrive are read from it. It ends when the stream ends; `onDestroy` runs when the
 * tunnel is torn down (the HTTP/2 session over it closed), to cancel or end the stream.
 */
export function tunnelOver<Out extends { tunnel?: unknown }>(frames: FrameStream<Out>, onDestroy: () => void): Duplex {
  let ended = false;
  const tunnel = new Duplex({
    write(chunk: Buffer, _encoding, callback) {
      frames.write({ tunnel: chunk } as Out, (error) => callback(error ?? null));
    },
    read() {
      frames.resume();
    },
    final(callback) {
      frames.end();
      callback();
    },
    destroy(error, callback) {
      if (!ended) onDestroy();
      callback(error);
    },
  });
  frames.on('data', (frame) => {
    if (frame.tunnel && frame.tunnel.length > 0 && !tunnel.push(frame.tunnel)) frames.pause();
  });
  const end = () => {
    if (ended) return;
    ended = true;
    tunnel.push(null);
    // The other end is gone: nothing more can be written either.
    tunnel.destroy();
  };
  frames.on('end', end);
  frames.on('close', end);
  frames.on('error', end);
  return tunnel;
}
