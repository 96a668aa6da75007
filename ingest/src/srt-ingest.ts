// SRT publishers (issue 56, docs/decisions/live.md "SRT"): `srt://host:9710?streamid=<key>`. No
// maintained Node binding of libsrt exists to install, and neither ffmpeg's SRT listener nor
// srt-live-transmit can refuse a caller by its stream id; so ingest stands between the caller and
// an ffmpeg listener of its own, as a UDP relay that reads the caller's handshake. The listener
// (one per caller, on loopback) answers the caller's induction; the caller's conclusion, which
// names its stream id, is held until the key is checked: a wrong or disabled key's conclusion is
// never passed on, so no connection is made and no media is sent (the caller gives up after its
// connect timeout, 3 s for ffmpeg). A good key's is passed on, and a second ffmpeg publishes the
// caller's stream into this ingest's RTMP server at `/live/<key>`, where it is admitted as any
// RTMP publisher (prePublish), so the farm sees one kind of source.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { createServer } from 'node:net';
import { rtmpRepublishArgs, runFfmpeg, srtListenerArgs } from '@kino/ffmpeg';
import type { Logger } from '@kino/infra';
import { readHandshake } from './srt-handshake.ts';

/** A caller whose handshake has not passed within this is dropped (its listener stopped). */
const handshakeDeadlineMs = 10_000;
/** A refused caller's retries are dropped for this long, without a new listener for each. */
const refusedMemoryMs = 10_000;
/** Callers handshaking at once: each costs an ffmpeg until its key is checked. */
const maxHandshaking = 16;
/**
 * An admitted caller's start is kept this long for its republisher's RTMP publish to take
 * (admittedAtMs): its listener and republisher probe the stream first, about 6 s in all.
 */
const admissionMemoryMs = 30_000;

export interface SrtIngestDeps {
  host: string;
  port: number;
  /** Whether `key` may publish now (a stream has it, enabled): checked before the handshake goes on. */
  mayPublish: (key: string) => Promise<boolean>;
  /** Where a key's stream is published into this ingest's RTMP server. */
  rtmpUrlOf: (key: string) => string;
  logger: Logger;
}

type CallerState = 'handshaking' | 'checking' | 'admitted' | 'refused';

interface Caller {
  address: string;
  port: number;
  state: CallerState;
  /** The listener's loopback UDP port, and the relay's socket towards it. */
  srtPort: number;
  relay: Socket;
  /** The loopback TCP port the republisher listens on, and the listener sends the caller's stream to. */
  relayPort: number;
  stop: AbortController;
  deadline: NodeJS.Timeout;
  /** Whether the republisher runs: the caller ends when it does. */
  republishing: boolean;
}

export class SrtIngest {
  private readonly socket = createSocket('udp4');
  private readonly callers = new Map<string, Caller>();
  /** When each key's caller was last admitted (its conclusion passed on), until its publish takes it. */
  private readonly admissions = new Map<string, number>();

  private readonly deps: SrtIngestDeps;
  constructor(deps: SrtIngestDeps) {
    this.deps = deps;
  }

  async start(): Promise<void> {
    this.socket.on('message', (packet, from) => void this.receive(packet, from));
    await new Promise<void>((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.bind(this.deps.port, this.deps.host, () => resolve());
    });
  }

  /**
   * When the caller publishing `key` was admitted, its media starting right after (ms since the
   * epoch): the broadcast's media time 0, which its RTMP publish, after the probes, is seconds late
   * for. Taken once; undefined for a key no caller was admitted with lately (an RTMP publisher).
   */
  admittedAtMs(key: string): number | undefined {
    const at = this.admissions.get(key);
    this.admissions.delete(key);
    return at !== undefined && Date.now() - at <= admissionMemoryMs ? at : undefined;
  }

  async stop(): Promise<void> {
    for (const id of [...this.callers.keys()]) this.close(id);
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private async receive(packet: Buffer, from: RemoteInfo): Promise<void> {
    const id = `${from.address}:${from.port}`;
    const caller = this.callers.get(id) ?? (await this.open(id, from));
    if (!caller || caller.state === 'refused' || caller.state === 'checking') return;
    const handshake = readHandshake(packet);
    if (handshake?.kind === 'conclusion' && caller.state === 'handshaking') {
      caller.state = 'checking';
      const admitted = await this.check(caller, handshake.streamId);
      if (!admitted || this.callers.get(id) !== caller) return;
    }
    caller.relay.send(packet, caller.srtPort, '127.0.0.1');
  }

  /** A new caller: its own listener, and a relay socket whose answers go back to the caller. */
  private async open(id: string, from: RemoteInfo): Promise<Caller | undefined> {
    const handshaking = [...this.callers.values()].filter((c) => c.state !== 'admitted').length;
    if (handshaking >= maxHandshaking) return undefined;
    const [srtPort, relayPort] = await Promise.all([freeUdpPort(), freeTcpPort()]);
    // Another datagram of the same caller may have opened it meanwhile.
    const opened = this.callers.get(id);
    if (opened) return opened;
    const relay = createSocket('udp4');
    const caller: Caller = {
      address: from.address,
      port: from.port,
      state: 'handshaking',
      srtPort,
      relay,
      relayPort,
      stop: new AbortController(),
      deadline: setTimeout(() => {
        if (caller.state !== 'admitted') this.close(id);
      }, handshakeDeadlineMs),
      republishing: false,
    };
    caller.deadline.unref();
    this.callers.set(id, caller);
    relay.on('message', (answer) => this.socket.send(answer, caller.port, caller.address));
    relay.bind(0, '127.0.0.1');
    void runFfmpeg(srtListenerArgs({ srtPort, relayPort }), { signal: caller.stop.signal }).then(
      () => {
        // The caller's stream ended: the republisher reads it to its end, then the caller closes.
        if (!caller.republishing) this.close(id);
      },
      (error: unknown) => {
        if (!caller.stop.signal.aborted) this.deps.logger.warn({ err: error, caller: id }, 'SRT listener failed');
        this.close(id);
      },
    );
    return caller;
  }

  /** The caller's key: a good one starts its republisher; a wrong one is refused and remembered a while. */
  private async check(caller: Caller, key: string | undefined): Promise<boolean> {
    const id = `${caller.address}:${caller.port}`;
    let admitted = false;
    try {
      admitted = key !== undefined && (await this.deps.mayPublish(key));
    } catch (error) {
      this.deps.logger.error({ err: error, caller: id }, 'SRT key check failed: caller refused');
    }
    if (!admitted || key === undefined) {
      this.deps.logger.warn({ ip: caller.address }, 'SRT publisher refused');
      caller.state = 'refused';
      caller.stop.abort();
      clearTimeout(caller.deadline);
      setTimeout(() => this.close(id), refusedMemoryMs).unref();
      return false;
    }
    caller.state = 'admitted';
    caller.republishing = true;
    this.admissions.set(key, Date.now());
    clearTimeout(caller.deadline);
    this.deps.logger.info({ ip: caller.address }, 'SRT publisher admitted: republishing over RTMP');
    // Started before the conclusion is passed on: it listens by the time the listener, which opens
    // its output only once the caller's media has come and been probed, connects to it.
    void runFfmpeg(rtmpRepublishArgs({ relayPort: caller.relayPort, rtmpUrl: this.deps.rtmpUrlOf(key) }), {
      signal: caller.stop.signal,
    })
      .catch((error: unknown) => {
        if (!caller.stop.signal.aborted) this.deps.logger.warn({ err: error, caller: id }, 'SRT republisher failed');
      })
      .finally(() => this.close(id));
    return true;
  }

  private close(id: string): void {
    const caller = this.callers.get(id);
    if (!caller) return;
    this.callers.delete(id);
    clearTimeout(caller.deadline);
    caller.stop.abort();
    caller.relay.close();
  }
}

function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createSocket('udp4');
    probe.once('error', reject);
    probe.bind(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
