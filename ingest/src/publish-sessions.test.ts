// The publish gate on stand-ins for node-media-server's sessions: nothing is read from a publisher
// (its socket stays paused) until its key is admitted; a refused one is cut off; only the holder of
// a broadcast's token may play it; the end of a broadcast closes its players.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import type { NmsSession } from 'node-media-server';
import { createLogger } from '@kino/infra';
import type { LiveStream, Video } from '@kino/database';
import type { PublishDecision } from './broadcasts.ts';
import { PublishSessions, type HeldBroadcast } from './publish-sessions.ts';

function fakeSession(name: string, { app = 'live', query = {} as Record<string, string> } = {}) {
  const events: string[] = [];
  const subscribers = new Map<string, NmsSession>();
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
    },
    broadcast: { publishGraceMs: 30_000, subscribers, getPublishStatus: () => 'publishing' as const },
    close: () => events.push('close'),
  } as unknown as NmsSession;
  return { session, events, subscribers };
}

const accepted = (key: string): PublishDecision => ({
  accepted: true,
  stream: { id: `ls_${key}`, reconnect_window_seconds: 7 } as LiveStream,
  video: { id: `vid_${key}` } as Video,
});

function gate(decide: (key: string) => PublishDecision) {
  const started: HeldBroadcast[] = [];
  const finished: HeldBroadcast[] = [];
  const sessions = new PublishSessions({
    admit: async (key) => decide(key),
    mayResume: async () => true,
    started: async (broadcast) => void started.push(broadcast),
    finished: async (broadcast) => void finished.push(broadcast),
    logger: createLogger('ingest-test', 'silent'),
  });
  return { sessions, started, finished };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('publish sessions', () => {
  it('reads nothing until the key is admitted, then holds the broadcast with its window', async () => {
    const { sessions, started } = gate(accepted);
    const { session, events } = fakeSession('sk_good');
    sessions.onPrePublish(session);
    assert.deepEqual(events, ['pause']);
    await settled();
    assert.deepEqual(events, ['pause', 'resume']);
    assert.equal(started[0]?.videoId, 'vid_sk_good');
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

  it('lets only the token holder play, and closes the players when the broadcast ends', async () => {
    const { sessions, finished } = gate(accepted);
    const publisher = fakeSession('sk_good');
    sessions.onPrePublish(publisher.session);
    await settled();
    const token = sessions.heldAt(publisher.session.streamPath)!.playToken;
    const stranger = fakeSession('sk_good', { query: { token: 'guess' } });
    sessions.onPrePlay(stranger.session);
    assert.deepEqual(stranger.events, ['destroy']);
    const relay = fakeSession('sk_good', { query: { token } });
    sessions.onPrePlay(relay.session);
    assert.deepEqual(relay.events, []);
    publisher.subscribers.set(relay.session.id, relay.session);
    sessions.onDonePublish(publisher.session);
    await settled();
    assert.deepEqual(relay.events, ['close']);
    assert.equal(finished[0]?.videoId, 'vid_sk_good');
    assert.equal(sessions.heldAt(publisher.session.streamPath), undefined);
  });
});
