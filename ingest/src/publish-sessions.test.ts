// The publish gate on stand-ins for node-media-server's sessions: nothing is read from a publisher
// (its socket stays paused) until its key is admitted; a refused one is cut off; only the holder of
// a broadcast's token may play it; the end of a broadcast closes its players; a publisher whose
// stream was disabled or whose key was reset is cut off.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import type { NmsBroadcast, NmsSession } from 'node-media-server';
import { createLogger } from '@kino/infra';
import { hashSecret, type LiveStream, type Video } from '@kino/database';
import type { PublishDecision } from './broadcasts.ts';
import { whyCutOff } from './key-watch.ts';
import { PublishSessions, relayPath, type HeldBroadcast } from './publish-sessions.ts';
import { broadcastSourceUrl } from './broadcast-workflows.ts';

function fakeSession(
  name: string,
  { app = 'live', query = {} as Record<string, string>, broadcast = undefined as NmsBroadcast | undefined } = {},
) {
  const events: string[] = [];
  const closeListeners: (() => void)[] = [];
  const subscribers = broadcast?.subscribers ?? new Map<string, NmsSession>();
  const session = {
    id: `s-${name}-${Math.random()}`,
    ip: '127.0.0.1',
    protocol: 'rtmp',
    isPublisher: true,
    streamApp: app,
    streamName: name,
    streamPath: `/${app}/${name}`,
    streamQuery: query,
    socket: {
      pause: () => events.push('pause'),
      resume: () => events.push('resume'),
      destroy: () => events.push('destroy'),
      once: (event: string, listener: () => void) => void (event === 'close' && closeListeners.push(listener)),
    },
    broadcast: broadcast ?? { publishGraceMs: 30_000, subscribers, getPublishStatus: () => 'publishing' as const },
    close: () => events.push('close'),
  } as unknown as NmsSession;
  /** The connection ends (the library's own close handling is not modelled). */
  const disconnect = () => closeListeners.forEach((listener) => listener());
  return { session, events, subscribers, disconnect };
}

const accepted = (key: string): PublishDecision => ({
  accepted: true,
  stream: { id: `ls_${key}`, reconnect_window_seconds: 7 } as LiveStream,
  video: { id: `vid_${key}` } as Video,
});

function gate(decide: (key: string) => PublishDecision, publisherStartedAtMs?: (key: string) => number | undefined) {
  const started: HeldBroadcast[] = [];
  const finished: HeldBroadcast[] = [];
  const dropped: HeldBroadcast[] = [];
  const libraryBroadcasts = new Map<string, NmsBroadcast>();
  const sessions = new PublishSessions({
    admit: async (key) => decide(key),
    mayResume: async () => true,
    started: async (broadcast) => void started.push(broadcast),
    finished: async (broadcast) => void finished.push(broadcast),
    dropped: (broadcast) => void dropped.push(broadcast),
    ...(publisherStartedAtMs ? { publisherStartedAtMs } : {}),
    backlogBytes: 1024,
    libraryBroadcasts,
    logger: createLogger('ingest-test', 'silent'),
  });
  return { sessions, started, finished, dropped, libraryBroadcasts };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('publish sessions', () => {
  it('reads nothing until the key is admitted, then holds the broadcast with its window', async () => {
    const { sessions, started } = gate(accepted);
    const { session, events } = fakeSession('sk_good');
    const publishedAt = Date.now();
    sessions.onPrePublish(session);
    assert.deepEqual(events, ['pause']);
    await settled();
    assert.deepEqual(events, ['pause', 'resume']);
    assert.equal(started[0]?.videoId, 'vid_sk_good');
    // Its media time 0 in wall-clock time: the publish, not the end of the admission.
    assert.ok(started[0].startedAtMs >= publishedAt && started[0].startedAtMs <= Date.now());
    assert.equal(session.broadcast.publishGraceMs, 7000);
    assert.ok(sessions.heldAt(session.streamPath)?.playToken.length === 32);
  });

  it('cuts off a refused publisher without a reconnect window', async () => {
    const { sessions, started } = gate(() => ({ accepted: false, reason: 'unknown_key' }));
    const { session, events } = fakeSession('sk_wrong');
    sessions.onPrePublish(session);
    await settled();
    assert.deepEqual(events, ['pause', 'destroy']);
    assert.equal(session.broadcast.publishGraceMs, 0);
    assert.equal(started.length, 0);
  });

  it('refuses another application than `live` without asking the database', async () => {
    const { sessions } = gate(() => assert.fail('no lookup for another application'));
    const { session, events } = fakeSession('sk_good', { app: 'other' });
    sessions.onPrePublish(session);
    await settled();
    assert.deepEqual(events, ['pause', 'destroy']);
  });

  it('lets only the token holder play, on the relay path, and closes the players when the broadcast ends', async () => {
    const { sessions, finished, libraryBroadcasts } = gate(accepted);
    const publisher = fakeSession('sk_good');
    sessions.onPrePublish(publisher.session);
    await settled();
    const held = sessions.heldAt(publisher.session.streamPath)!;
    // The node's URL names the broadcast's video, never the key; the library finds the broadcast there.
    const url = broadcastSourceUrl('rtmp://ingest-1:1935', held);
    assert.equal(url, `rtmp://ingest-1:1935/broadcast/vid_sk_good?token=${held.playToken}&from=start`);
    assert.equal(libraryBroadcasts.get(relayPath('vid_sk_good')), publisher.session.broadcast);
    const token = held.playToken;
    const relayed = { app: 'broadcast', broadcast: publisher.session.broadcast };
    const stranger = fakeSession('vid_sk_good', { ...relayed, query: { token: 'guess' } });
    sessions.onPrePlay(stranger.session);
    assert.deepEqual(stranger.events, ['destroy']);
    const onKeyPath = fakeSession('sk_good', { query: { token } });
    sessions.onPrePlay(onKeyPath.session);
    assert.deepEqual(onKeyPath.events, ['destroy'], 'the publisher’s path, which names the key, is not played');
    const relay = fakeSession('vid_sk_good', { ...relayed, query: { token } });
    sessions.onPrePlay(relay.session);
    assert.deepEqual(relay.events, []);
    publisher.subscribers.set(relay.session.id, relay.session);
    sessions.onDonePublish(publisher.session);
    await settled();
    assert.deepEqual(relay.events, ['close']);
    assert.equal(finished[0]?.videoId, 'vid_sk_good');
    assert.equal(sessions.heldAt(publisher.session.streamPath), undefined);
    assert.equal(libraryBroadcasts.has(relayPath('vid_sk_good')), false, 'the relay path ends with the broadcast');
  });

  it('gives the encoder the broadcast from its start, and only the encoder', async () => {
    const { sessions } = gate(accepted);
    const publisher = fakeSession('sk_good');
    sessions.onPrePublish(publisher.session);
    await settled();
    const token = sessions.heldAt(publisher.session.streamPath)!.playToken;
    // The library sends every message to each subscriber: the backlog is one of them.
    const send = (message: string) => {
      for (const subscriber of publisher.subscribers.values())
        (subscriber as unknown as { sendBuffer(b: Buffer): void }).sendBuffer(Buffer.from(message));
    };
    send('header');
    send('frame-1');
    const relayed = { app: 'broadcast', broadcast: publisher.session.broadcast };
    const probe = fakeSession('vid_sk_good', { ...relayed, query: { token } });
    sessions.onPrePlay(probe.session);
    assert.equal(publisher.session.broadcast.rtmpGopCache, undefined, 'a probe gets the last GOP, as any reader');
    send('frame-2');
    const encoder = fakeSession('vid_sk_good', { ...relayed, query: { token, from: 'start' } });
    sessions.onPrePlay(encoder.session);
    assert.deepEqual(
      [...(encoder.session.broadcast.rtmpGopCache ?? [])].map((b) => b.toString()),
      ['header', 'frame-1', 'frame-2'],
    );
    assert.equal(publisher.subscribers.size, 0, 'the backlog ends once handed over');
  });

  it('drops a backlog past its bytes', async () => {
    const { sessions } = gate(accepted);
    const publisher = fakeSession('sk_good');
    sessions.onPrePublish(publisher.session);
    await settled();
    const [backlog] = publisher.subscribers.values() as unknown as [{ sendBuffer(b: Buffer): void }];
    backlog.sendBuffer(Buffer.alloc(1025));
    assert.equal(publisher.subscribers.size, 0);
  });

  it('cuts a held publisher off at once, without its reconnect window', async () => {
    const { sessions, finished } = gate(accepted);
    const publisher = fakeSession('sk_good');
    sessions.onPrePublish(publisher.session);
    await settled();
    const [broadcast] = sessions.heldBroadcasts();
    sessions.cutOff(broadcast!, 'stream key reset');
    assert.deepEqual(publisher.events, ['pause', 'resume', 'destroy']);
    assert.equal(publisher.session.broadcast.publishGraceMs, 0);
    // The library's end of the publish follows the destroyed socket.
    sessions.onDonePublish(publisher.session);
    await settled();
    assert.equal(finished.length, 1);
  });
});

describe('an SRT caller republished into RTMP', () => {
  it('dates a republished SRT caller from its admission, not from its publish seconds later', async () => {
    const admittedAt = Date.now() - 6_000;
    const { sessions, started } = gate(accepted, (key) => (key === 'sk_srt' ? admittedAt : undefined));
    sessions.onPrePublish(fakeSession('sk_srt').session);
    const publishedAt = Date.now();
    sessions.onPrePublish(fakeSession('sk_rtmp').session);
    await settled();
    assert.equal(started.find((b) => b.key === 'sk_srt')?.startedAtMs, admittedAt);
    assert.ok(started.find((b) => b.key === 'sk_rtmp')!.startedAtMs >= publishedAt, 'an RTMP publisher: its publish');
  });

  it('takes an admission with the publish that follows it, even one refused: a later publisher is dated by its own', async () => {
    const admissions = new Map([['sk_srt', Date.now() - 6_000]]);
    let refuse = true;
    const { sessions, started } = gate(
      (key) => (refuse ? { accepted: false, reason: 'disabled' } : accepted(key)),
      (key) => {
        const at = admissions.get(key);
        admissions.delete(key);
        return at;
      },
    );
    sessions.onPrePublish(fakeSession('sk_srt').session);
    await settled();
    refuse = false;
    const publishedAt = Date.now();
    sessions.onPrePublish(fakeSession('sk_srt').session);
    await settled();
    assert.ok(started[0]!.startedAtMs >= publishedAt, 'not the admission the refused publish had');
  });
});

describe('a publisher dropping', () => {
  it('tells of an admitted publisher dropping, and of no refused one', async () => {
    const { sessions, dropped } = gate((key) =>
      key === 'sk_good' ? accepted(key) : { accepted: false, reason: 'unknown_key' },
    );
    const good = fakeSession('sk_good');
    const wrong = fakeSession('sk_wrong');
    sessions.onPrePublish(good.session);
    sessions.onPrePublish(wrong.session);
    await settled();
    wrong.disconnect();
    assert.equal(dropped.length, 0);
    good.disconnect();
    assert.deepEqual(
      dropped.map((b) => b.videoId),
      ['vid_sk_good'],
    );
    // Once the window has passed the broadcast is over: a late close tells of nothing.
    sessions.onDonePublish(good.session);
    good.disconnect();
    assert.equal(dropped.length, 1);
  });
});

describe('an ingest stopping', () => {
  it('ends every broadcast it holds', async () => {
    const { sessions, finished } = gate(accepted);
    for (const key of ['sk_one', 'sk_two']) sessions.onPrePublish(fakeSession(key).session);
    await settled();
    await sessions.releaseAll();
    assert.deepEqual(finished.map((b) => b.videoId).sort(), ['vid_sk_one', 'vid_sk_two']);
    assert.deepEqual(sessions.heldBroadcasts(), []);
  });
});

describe('the key watch', () => {
  const broadcast = {
    liveStreamId: 'ls_1',
    videoId: 'vid_1',
    sessionId: 's',
    playToken: 't',
    key: 'sk_one',
    startedAtMs: 0,
  };
  const stream = (changes: Partial<LiveStream> = {}) =>
    ({ id: 'ls_1', disabled_at: null, stream_key_hash: hashSecret('sk_one'), ...changes }) as LiveStream;

  it('keeps a publisher whose key still opens its enabled stream', () => {
    assert.equal(whyCutOff(broadcast, stream()), undefined);
  });

  it('cuts off a publisher whose stream was deleted, disabled or given a new key', () => {
    assert.equal(whyCutOff(broadcast, undefined), 'stream deleted');
    assert.equal(whyCutOff(broadcast, stream({ disabled_at: new Date() })), 'stream disabled');
    assert.equal(whyCutOff(broadcast, stream({ stream_key_hash: hashSecret('sk_two') })), 'stream key reset');
  });
});
