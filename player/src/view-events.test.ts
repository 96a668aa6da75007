// The view's event sequencer fed media events as Chromium fired them (sequences recorded from
// <kino-player> playing through a stalling proxy, with times rounded), and the batching's split.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { BEACON_MAX_BYTES, BEACON_MAX_EVENTS, type BeaconEvent } from '@kino/proto/contract';
import { beaconBodies } from './beacon-sender.ts';
import { ViewEvents, type MediaEventName } from './view-events.ts';

type Step =
  | [at: number, name: MediaEventName | 'timeupdate', position?: number]
  | [at: number, 'heartbeat']
  | [at: number, 'rendition', height: number]
  | [at: number, 'fatal', code: string];

/** Plays `steps` (clock ms, what happened) through a sequencer and returns its events. */
function replay(steps: readonly Step[]): BeaconEvent[] {
  let clock = 1000;
  let position = 0;
  const events: BeaconEvent[] = [];
  const view = new ViewEvents(
    () => clock,
    (event) => events.push(event),
    () => position,
  );
  for (const step of steps) {
    clock = 1000 + step[0];
    const what = step[1];
    if (what === 'heartbeat') view.heartbeat();
    else if (what === 'rendition') view.rendition(step[2] as number, 800_000, 'avc1.64001f');
    else if (what === 'fatal') view.fatalError(step[2] as string);
    else {
      if (typeof step[2] === 'number') position = step[2];
      if (what === 'timeupdate') view.timeUpdate();
      else view.media(what);
    }
  }
  return events;
}

test('a view with two stalls: play request, first frame, two rebuffers, watch time, end', () => {
  const events = replay([
    [120, 'play'],
    [130, 'waiting'], // before the first frame: startup, not a rebuffer
    [540, 'rendition', 360],
    [610, 'playing'],
    [2600, 'timeupdate', 2],
    [2610, 'waiting'],
    [4120, 'playing'],
    [5000, 'heartbeat'],
    [6610, 'waiting'],
    [8110, 'playing'],
    [9000, 'timeupdate', 6.4],
    [9900, 'ended'],
    [9950, 'pause'], // after the end: nothing
  ]);
  assert.deepEqual(events, [
    { type: 'viewstart', at: 0 },
    { type: 'playrequest', at: 120 },
    { type: 'rendition', at: 540, height: 360, bitrate: 800_000, codec: 'avc1.64001f' },
    { type: 'firstframe', at: 610 },
    { type: 'rebufferstart', at: 2610 },
    { type: 'rebufferend', at: 4120 },
    // Playing 610–2610 and 4120–5000.
    { type: 'heartbeat', at: 5000, watchedMs: 2880 },
    { type: 'rebufferstart', at: 6610 },
    { type: 'rebufferend', at: 8110 },
    // 5000–6610 and 8110–9900.
    { type: 'heartbeat', at: 9900, watchedMs: 3400 },
    { type: 'viewend', at: 9900 },
  ]);
});

test('a seek is a seek, not a rebuffer, and a paused player reports no watch time', () => {
  const events = replay([
    [100, 'play'],
    [400, 'playing'],
    [3000, 'timeupdate', 2.6],
    [3100, 'pause'],
    [3200, 'seeking', 20],
    [3210, 'waiting'],
    [3900, 'seeked', 20],
    [10_000, 'heartbeat'],
    [12_000, 'heartbeat'], // still paused: none
    [13_000, 'play'],
    [13_050, 'playing'],
    [14_050, 'heartbeat'],
  ]);
  assert.deepEqual(events, [
    { type: 'viewstart', at: 0 },
    { type: 'playrequest', at: 100 },
    { type: 'firstframe', at: 400 },
    { type: 'seek', at: 3900, from: 2600, to: 20_000 },
    { type: 'heartbeat', at: 10_000, watchedMs: 2700 },
    { type: 'heartbeat', at: 14_050, watchedMs: 1000 },
  ]);
});

test('a view whose segments fail: a fatal error with its code ends it, and nothing follows', () => {
  const events = replay([
    [80, 'play'],
    [90, 'waiting'],
    [3000, 'fatal', 'fragLoadError'],
    [3100, 'playing'],
  ]);
  assert.deepEqual(events, [
    { type: 'viewstart', at: 0 },
    { type: 'playrequest', at: 80 },
    { type: 'error', at: 3000, code: 'fragLoadError', fatal: true },
    { type: 'viewend', at: 3000 },
  ]);
});

test('a stall a seek interrupts ends at the seek', () => {
  const events = replay([
    [0, 'play'],
    [200, 'playing'],
    [1000, 'timeupdate', 0.8],
    [1200, 'waiting'],
    [1500, 'seeking', 30],
    [1800, 'seeked', 30],
    [2000, 'playing'],
  ]);
  assert.deepEqual(
    events.map((e) => [e.type, e.at]),
    [
      ['viewstart', 0],
      ['playrequest', 0],
      ['firstframe', 200],
      ['rebufferstart', 1200],
      ['seek', 1800],
      ['rebufferend', 1800],
    ],
  );
});

test('a batch is split at 100 events and at 64 KB, every event kept in order', () => {
  const envelope = { viewId: 'v', videoId: 'vid', player: { name: '@kino/player', version: '0.1.0' } };
  const many: BeaconEvent[] = Array.from({ length: 250 }, (_, at) => ({ type: 'heartbeat', at, watchedMs: 1 }));
  const bodies = beaconBodies(envelope, many).map((b) => JSON.parse(b) as { events: BeaconEvent[] });
  assert.deepEqual(
    bodies.map((b) => b.events.length),
    [BEACON_MAX_EVENTS, BEACON_MAX_EVENTS, 50],
  );
  assert.deepEqual(
    bodies.flatMap((b) => b.events),
    many,
  );
  const big: BeaconEvent[] = Array.from({ length: 60 }, (_, at) => ({
    type: 'error',
    at,
    code: 'x'.repeat(2000),
    fatal: false,
  }));
  const bigBodies = beaconBodies(envelope, big);
  assert.ok(bigBodies.length >= 2);
  for (const body of bigBodies) assert.ok(new TextEncoder().encode(body).length <= BEACON_MAX_BYTES);
  assert.equal(bigBodies.flatMap((b) => (JSON.parse(b) as { events: BeaconEvent[] }).events).length, 60);
});
