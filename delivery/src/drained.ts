import type { ServerResponse } from 'node:http';

/** Resolves when a response whose write() answered false may be written again: drained, or closed. */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
