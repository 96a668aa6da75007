// A broadcast from its first frame, for the farm's encoder (issue 56). The RTMP library hands a new
// reader only the stream's headers and its last GOP, and the node's encoder attaches seconds after
// the publisher starts (the workflow starts, a node probes, a slot is leased): the recording would
// lose those seconds. So ingest keeps every message of the broadcast from its start, as one more
// subscriber of it, until the reader that takes the broadcast from its start attaches
// (`?from=start`): it is then given all of them where the library would give its last GOP, and the
// backlog ends. A backlog past `maxBytes` (no encoder came) is dropped: the recording then starts
// at the encoder's GOP.
import type { NmsBroadcast, NmsSession } from 'node-media-server';
import { randomBase62, type Logger } from '@kino/infra';

export class BroadcastBacklog {
  private messages: Buffer[] = [];
  private bytes = 0;
  private readonly id = `kino-backlog-${randomBase62(12)}`;

  private readonly broadcast: NmsBroadcast;
  private readonly maxBytes: number;
  private readonly logger: Logger;
  constructor(broadcast: NmsBroadcast, maxBytes: number, logger: Logger) {
    this.broadcast = broadcast;
    this.maxBytes = maxBytes;
    this.logger = logger;
    // The library sends each message to its subscribers as it arrives: this one keeps them.
    const subscriber = {
      id: this.id,
      ip: '',
      protocol: 'rtmp',
      sendBuffer: (message: Buffer) => this.keep(message),
      close: () => this.end(),
    };
    broadcast.subscribers.set(this.id, subscriber as unknown as NmsSession);
  }

  /**
   * Gives `reader` the broadcast from its start, in place of the last GOP the library is about to
   * send it (called from `prePlay`, which the library emits just before it does); the backlog ends.
   */
  handTo(reader: NmsSession): void {
    if (this.messages.length > 0) reader.broadcast.rtmpGopCache = new Set(this.messages);
    this.logger.info({ sessionId: reader.id, bytes: this.bytes }, 'broadcast handed over from its start');
    this.end();
  }

  end(): void {
    this.broadcast.subscribers.delete(this.id);
    this.messages = [];
    this.bytes = 0;
  }

  private keep(message: Buffer): void {
    this.messages.push(message);
    this.bytes += message.length;
    if (this.bytes <= this.maxBytes) return;
    this.logger.warn({ maxBytes: this.maxBytes }, 'no encoder took the broadcast from its start: backlog dropped');
    this.end();
  }
}
