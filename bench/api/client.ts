// The API benchmarks' caller: a process of its own that makes one HTTP call at a time over a
// keep-alive connection (node:http, as lean a client as Node has) and times it, and does nothing
// else. The bench process also pipes the logs of every process of the stack and runs its own
// queries; timed there, a call would carry that process's work and its garbage collections too.
// Driven over the fork's IPC channel by `startApiClient`; the timing never includes the IPC.
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';

export interface ApiCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface TimedAnswer {
  ms: number;
  status: number;
  text: string;
}

/** Starts the caller process; `call` resolves with the answer and the time the call took in it. */
export function startApiClient(): { call: (call: ApiCall) => Promise<TimedAnswer>; stop: () => void } {
  const child: ChildProcess = fork(import.meta.filename, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let pending: { resolve: (answer: TimedAnswer) => void; reject: (error: Error) => void } | undefined;
  child.on('message', (answer: TimedAnswer | { error: string }) => {
    const waiting = pending;
    pending = undefined;
    if ('error' in answer) waiting?.reject(new Error(answer.error));
    else waiting?.resolve(answer);
  });
  child.on('exit', (code) => pending?.reject(new Error(`the API client process exited (${code})`)));
  return {
    call: (call) =>
      new Promise((resolve, reject) => {
        if (pending) throw new Error('one call at a time');
        pending = { resolve, reject };
        child.send(call);
      }),
    stop: () => child.kill(),
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send({ method, url, headers, body }: ApiCall): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

if (process.send && process.argv[1] === import.meta.filename) {
  process.on('message', (call: ApiCall) => {
    const began = performance.now();
    send(call).then(
      ({ status, text }) => process.send!({ ms: performance.now() - began, status, text }),
      (error: Error) => process.send!({ error: error.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
