// Structured logs (pino). Every log line of a process carries its `service`; callers add
// `videoId`, `jobId`, `nodeId` as child bindings.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service } });
}
