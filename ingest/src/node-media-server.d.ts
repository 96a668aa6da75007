// The part of node-media-server 4's (untyped, CommonJS) interface ingest uses.
declare module 'node-media-server' {
  import type { Socket } from 'node:net';

  export interface NmsBroadcast {
    /** How long a publisher that dropped may come back and resume (same address); 30 s unless set. */
    publishGraceMs: number;
    subscribers: Map<string, NmsSession>;
    /** The messages since the last keyframe, which the library sends a new reader after the headers. */
    rtmpGopCache: Set<Buffer> | null;
    /** `reconnecting` while a dropped publisher's grace runs. */
    getPublishStatus(): 'publishing' | 'reconnecting' | 'idle';
  }

  export interface NmsSession {
    id: string;
    ip: string;
    protocol: string;
    isPublisher: boolean;
    streamApp: string;
    streamName: string;
    streamPath: string;
    streamQuery: Record<string, string | string[] | undefined>;
    socket: Socket;
    broadcast: NmsBroadcast;
    close(): void;
  }

  export interface NmsConfig {
    bind?: string;
    rtmp?: { port: number };
    store?: { path: string };
    webadmin?: { enable: boolean };
    record?: { auto: boolean; path: string };
  }

  export type NmsEvent = 'prePublish' | 'postPublish' | 'donePublish' | 'prePlay' | 'postPlay' | 'donePlay';

  export default class NodeMediaServer {
    constructor(config: NmsConfig, configPath?: string);
    on(event: NmsEvent, listener: (session: NmsSession) => void): void;
    run(): Promise<void>;
    stop(): Promise<void>;
  }
}

declare module 'node-media-server/src/core/logger.js' {
  const logger: { level: string; log(message: string, level?: string): void };
  export default logger;
}

declare module 'node-media-server/src/core/context.js' {
  import type { NmsBroadcast } from 'node-media-server';
  /** The library's module-wide state; ingest uses its broadcasts by stream path. */
  const context: { broadcasts: Map<string, NmsBroadcast> };
  export default context;
}
