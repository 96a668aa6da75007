// The RTMP library's sessions as broadcasts. node-media-server tells of a publish after it has
// answered the publisher's `publish` command but before it reads any media: the socket is paused
// there, so nothing is read until the key is checked, and a refused publisher is cut off with its
// media unread. A publisher that drops is given its stream's reconnect window (the library resumes
// a publisher coming back from the same address); the broadcast ends when the window passes.
import type { NmsBroadcast, NmsSession } from 'node-media-server';
import { randomBase62, type Logger } from '@kino/infra';
import type { PublishDecision } from './broadcasts.ts';
import { BroadcastBacklog } from './broadcast-backlog.ts';

/** The RTMP application publishers use: `rtmp://host/live/<stream key>`. */
export const publishApp = 'live';

/**
 * Where the farm's node plays a broadcast: `/broadcast/<videoId>`, a second name for the publisher's
 * path, so the workflow's input and the node never learn the stream key. Only this path may be played.
 */
export function relayPath(videoId: string): string {
  return `/broadcast/${videoId}`;
}

/** A broadcast this ingest holds: its stream, its video, the session publishing, the relay's token. */
export interface HeldBroadcast {
  liveStreamId: string;
  videoId: string;
  sessionId: string;
  /** Unguessable, for the node that pulls the stream from ingest (`?token=`): no one else may play it. */
  playToken: string;
  /** The key it was opened with: a reset replaces the stream's, and then this publisher is cut off. */
  key: string;
  /**
   * When its publisher's `publish` was answered (ms since the epoch): the wall-clock time of the
   * broadcast's media time 0. A publisher starts its media clock there (ffmpeg opens its output
   * before it reads its input; an encoder's stream times start at its output's start); the first
   * media message comes later, by the publisher's encoder delay and the admission's pause.
   */
  startedAtMs: number;
}

export interface PublishSessionsDeps {
  /** Checks the key and starts a broadcast (broadcasts.ts's admitPublisher). */
  admit: (key: string) => Promise<PublishDecision>;
  /** Whether the key still opens this stream, enabled: a publisher back within its window continues. */
  mayResume: (key: string, liveStreamId: string) => Promise<boolean>;
  /** The broadcast started: its workflow is started here (the farm takes it from there); a failure refuses the publisher. */
  started: (broadcast: HeldBroadcast, session: NmsSession) => Promise<void>;
  /** The reconnect window passed: the broadcast is over. */
  finished: (broadcast: HeldBroadcast) => Promise<void>;
  /** The publisher's connection ended while its broadcast is held: its reconnect window opens now. */
  dropped: (broadcast: HeldBroadcast) => void;
  /**
   * When the publisher of `key` began, where ingest knows it before its RTMP publish: an SRT caller
   * admitted (srt-ingest.ts) is republished only once its stream has been probed, seconds after its
   * media began. Undefined: the publish is its start.
   */
  publisherStartedAtMs?: (key: string) => number | undefined;
  /** How much of a broadcast is kept from its start for its encoder (broadcast-backlog.ts). */
  backlogBytes: number;
  /**
   * The library's broadcasts by path (its `Context.broadcasts`): a held broadcast is entered here a
   * second time under its relay path, where a reader connecting to that path finds it.
   */
  libraryBroadcasts: Map<string, NmsBroadcast>;
  logger: Logger;
}

/** The query of the reader that takes a broadcast from its first frame (the farm's encoder). */
export const fromStartQuery = 'from=start';

export class PublishSessions {
  /** By stream path (`/live/<key>`): one broadcast per key at a time. */
  private readonly held = new Map<string, HeldBroadcast>();
  /** The session publishing each held broadcast, by stream path. */
  private readonly publishers = new Map<string, NmsSession>();
  /** Each held broadcast's messages from its start, until its encoder attaches, by stream path. */
  private readonly backlogs = new Map<string, BroadcastBacklog>();
  /** The publisher's stream path of each held broadcast, by its relay path. */
  private readonly relayed = new Map<string, string>();

  private readonly deps: PublishSessionsDeps;
  constructor(deps: PublishSessionsDeps) {
    this.deps = deps;
  }

  /** The broadcast a path holds, for the relay's play check. */
  heldAt(streamPath: string): HeldBroadcast | undefined {
    return this.held.get(streamPath);
  }

  /** Every broadcast this ingest holds (its key watch reads their streams). */
  heldBroadcasts(): HeldBroadcast[] {
    return [...this.held.values()];
  }

  /**
   * Gives up every broadcast (ingest stops): each is ended as if its window had passed, so no stream
   * stays `active` behind an ingest that is gone. Its publishers are cut off by the library's stop.
   */
  async releaseAll(): Promise<void> {
    const held = [...this.held.values()];
    for (const [path, broadcast] of [...this.held]) this.forget(path, broadcast);
    await Promise.all(
      held.map((broadcast) =>
        this.deps.finished(broadcast).catch((error: unknown) => {
          this.deps.logger.error({ err: error, ...logFields(broadcast) }, 'ending the broadcast failed');
        }),
      ),
    );
  }

  /**
   * Cuts a broadcast's publisher off now, without its reconnect window (its stream was disabled or
   * its key reset): the broadcast ends as if the window had passed.
   */
  cutOff(broadcast: HeldBroadcast, why: string): void {
    const path = [...this.held].find(([, held]) => held === broadcast)?.[0];
    const session = path === undefined ? undefined : this.publishers.get(path);
    if (!session) return;
    this.deps.logger.info({ ...logFields(broadcast), why }, 'publisher cut off');
    refuse(session);
  }

  /** node-media-server's `prePublish`: pause, check, then resume or cut off. */
  onPrePublish(session: NmsSession): void {
    session.socket.pause();
    const publishedAtMs = Date.now();
    // Read now: the library resumes (or ends) a dropped publisher's broadcast right after this event.
    const reconnecting = session.broadcast.getPublishStatus() === 'reconnecting';
    void this.decide(session, reconnecting, publishedAtMs).then(
      (accepted) => {
        if (accepted) session.socket.resume();
        else refuse(session);
      },
      (error: unknown) => {
        this.deps.logger.error({ err: error, sessionId: session.id }, 'publish check failed: publisher refused');
        refuse(session);
      },
    );
  }

  /** node-media-server's `donePublish`, after the window: end the broadcast and cut off its relays. */
  onDonePublish(session: NmsSession): void {
    const broadcast = this.held.get(session.streamPath);
    if (!broadcast || broadcast.sessionId !== session.id) return;
    this.forget(session.streamPath, broadcast);
    // The node pulling the stream reads to its end: its encode finishes and uploads the last segments.
    for (const player of session.broadcast.subscribers.values()) player.close();
    void this.deps.finished(broadcast).catch((error: unknown) => {
      this.deps.logger.error({ err: error, ...logFields(broadcast) }, 'ending the broadcast failed');
    });
  }

  /**
   * node-media-server's `prePlay`: only a holder of the broadcast's token may read it, and only on its
   * relay path (the publisher's path names the key).
   */
  onPrePlay(session: NmsSession): void {
    const publisherPath = this.relayed.get(session.streamPath);
    const broadcast = publisherPath === undefined ? undefined : this.held.get(publisherPath);
    const token = session.streamQuery.token;
    if (publisherPath !== undefined && broadcast && typeof token === 'string' && token === broadcast.playToken) {
      // The library sends the headers and its last GOP right after this event: the encoder gets all.
      if (session.streamQuery.from === 'start') {
        this.backlogs.get(publisherPath)?.handTo(session);
        this.backlogs.delete(publisherPath);
      }
      return;
    }
    this.deps.logger.warn({ sessionId: session.id, ip: session.ip }, 'play refused: no broadcast or a wrong token');
    session.socket.destroy();
  }

  /** Holds a broadcast just admitted: by its publisher's path, under its relay path, with its backlog. */
  private hold(session: NmsSession, broadcast: HeldBroadcast): void {
    this.held.set(session.streamPath, broadcast);
    this.publishers.set(session.streamPath, session);
    this.relayed.set(relayPath(broadcast.videoId), session.streamPath);
    this.deps.libraryBroadcasts.set(relayPath(broadcast.videoId), session.broadcast);
    const backlogLog = this.deps.logger.child(logFields(broadcast));
    this.backlogs.set(session.streamPath, new BroadcastBacklog(session.broadcast, this.deps.backlogBytes, backlogLog));
  }

  /** Tells of the admitted publisher's connection ending, unless its broadcast has ended or moved on. */
  private watchDrop(session: NmsSession): void {
    session.socket.once('close', () => {
      const broadcast = this.held.get(session.streamPath);
      if (broadcast?.sessionId === session.id) this.deps.dropped(broadcast);
    });
  }

  /** Lets go of a broadcast that ended or never started: nothing of it is held or playable after. */
  private forget(streamPath: string, broadcast: HeldBroadcast): void {
    this.held.delete(streamPath);
    this.publishers.delete(streamPath);
    this.endRelay(broadcast);
    this.backlogs.get(streamPath)?.end();
    this.backlogs.delete(streamPath);
  }

  private endRelay(broadcast: HeldBroadcast): void {
    const path = relayPath(broadcast.videoId);
    const publisherPath = this.relayed.get(path);
    this.relayed.delete(path);
    // Only our own entry: the library deletes a broadcast's own path when it is empty.
    if (publisherPath !== undefined) this.deps.libraryBroadcasts.delete(path);
  }

  private async decide(session: NmsSession, reconnecting: boolean, publishedAtMs: number): Promise<boolean> {
    const key = session.streamName;
    if (session.streamApp !== publishApp || !key) return false;
    // Taken whatever is decided, so that no later publish of the key finds a stale one.
    const startedAtMs = this.deps.publisherStartedAtMs?.(key) ?? publishedAtMs;
    const resuming = this.held.get(session.streamPath);
    // A second publisher while the first still publishes: the library refuses it too.
    if (resuming && !reconnecting) return false;
    if (resuming) {
      if (!(await this.deps.mayResume(key, resuming.liveStreamId))) return false;
      resuming.sessionId = session.id;
      this.publishers.set(session.streamPath, session);
      this.watchDrop(session);
      this.deps.logger.info({ ...logFields(resuming), ip: session.ip }, 'publisher back within its reconnect window');
      return true;
    }
    const decision = await this.deps.admit(key);
    if (!decision.accepted) {
      this.deps.logger.warn(
        { reason: decision.reason, liveStreamId: decision.liveStreamId, ip: session.ip },
        'publisher refused',
      );
      return false;
    }
    const broadcast: HeldBroadcast = {
      liveStreamId: decision.stream.id,
      videoId: decision.video.id,
      sessionId: session.id,
      playToken: randomBase62(32),
      key,
      startedAtMs,
    };
    // The library's grace for a dropped publisher is the stream's own reconnect window.
    session.broadcast.publishGraceMs = decision.stream.reconnect_window_seconds * 1000;
    this.hold(session, broadcast);
    this.watchDrop(session);
    this.deps.logger.info({ ...logFields(broadcast), ip: session.ip }, 'broadcast started');
    try {
      await this.deps.started(broadcast, session);
    } catch (error) {
      // Nothing would record it (its workflow did not start): the publisher is refused, the stream idle.
      this.forget(session.streamPath, broadcast);
      await this.deps.finished(broadcast);
      throw error;
    }
    return true;
  }
}

/** Cut off at once, media unread; no reconnect window for a publisher never admitted. */
function refuse(session: NmsSession): void {
  session.broadcast.publishGraceMs = 0;
  session.socket.destroy();
}

function logFields(broadcast: HeldBroadcast) {
  return { liveStreamId: broadcast.liveStreamId, videoId: broadcast.videoId };
}
