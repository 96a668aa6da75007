import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { PacedBodyWriter } from './paced-body-writer.ts';

/** A response that records what it was ended with (the writer calls only `end` and reads `destroyed`). */
function fakeResponse(name: string, ended: string[]): ServerResponse & { destroyed: boolean } {
  return {
    destroyed: false,
    end: (data: Buffer) => ended.push(`${name}:${data.length}`),
  } as unknown as ServerResponse & { destroyed: boolean };
}

/** Turns end only when the test says, so it can look between them. */
function manualTurns() {
  const waiting: (() => void)[] = [];
  return {
    schedule: (run: () => void) => waiting.push(run),
    endTurn: () => {
      const run = waiting.shift();
      assert.ok(run, 'the end of the turn was scheduled');
      run();
    },
    get scheduled() {
      return waiting.length;
    },
  };
}

test('bodies go out in arrival order, at most the budget per turn; an oversized one alone', () => {
  const ended: string[] = [];
  const turns = manualTurns();
  const writer = new PacedBodyWriter(4_000, turns.schedule);
  for (const [name, size] of [
    ['a', 2_000],
    ['b', 2_000],
    ['c', 2_000],
    ['d', 9_000],
    ['e', 100],
  ] as const) {
    writer.end(fakeResponse(name, ended), Buffer.alloc(size));
  }
  assert.deepEqual(ended, ['a:2000', 'b:2000'], 'bodies go at once while the turn has budget');
  assert.equal(writer.queued, 3);
  assert.equal(turns.scheduled, 1, 'one end of turn is scheduled however many bodies wait');
  turns.endTurn();
  assert.deepEqual(ended.slice(2), ['c:2000'], 'd would overflow the new budget: it waits');
  turns.endTurn();
  assert.deepEqual(ended.slice(3), ['d:9000'], 'a body over the budget goes alone');
  turns.endTurn();
  assert.deepEqual(ended.slice(4), ['e:100']);
  assert.equal(writer.queued, 0);
  turns.endTurn();
  assert.equal(turns.scheduled, 0, 'a turn that wrote nothing, with nothing waiting, schedules nothing');

  writer.end(fakeResponse('f', ended), Buffer.alloc(10));
  assert.deepEqual(ended.slice(5), ['f:10'], 'an idle writer writes at once');
  assert.equal(turns.scheduled, 1, 'and counts the turn again');
});

test('a body arriving while others wait queues behind them even when it would fit', () => {
  const ended: string[] = [];
  const turns = manualTurns();
  const writer = new PacedBodyWriter(4_000, turns.schedule);
  writer.end(fakeResponse('a', ended), Buffer.alloc(4_000));
  writer.end(fakeResponse('b', ended), Buffer.alloc(1_000));
  turns.endTurn(); // b goes; 1,000 of the new turn's budget spent
  writer.end(fakeResponse('c', ended), Buffer.alloc(3_500));
  writer.end(fakeResponse('d', ended), Buffer.alloc(100));
  assert.deepEqual(ended, ['a:4000', 'b:1000'], 'c overflows the turn, and d, though it fits, waits behind c');
  turns.endTurn();
  assert.deepEqual(ended.slice(2), ['c:3500', 'd:100']);
});

test('a response closed while it waited is skipped and spends none of the budget', () => {
  const ended: string[] = [];
  const turns = manualTurns();
  const writer = new PacedBodyWriter(4_000, turns.schedule);
  writer.end(fakeResponse('a', ended), Buffer.alloc(4_000));
  const gone = fakeResponse('gone', ended);
  writer.end(gone, Buffer.alloc(3_000));
  writer.end(fakeResponse('b', ended), Buffer.alloc(3_000));
  gone.destroyed = true;
  turns.endTurn();
  assert.deepEqual(ended, ['a:4000', 'b:3000']);
  assert.equal(writer.queued, 0);
});

test('a queue that never empties keeps its order across thousands of turns', () => {
  const ended: string[] = [];
  const turns = manualTurns();
  const writer = new PacedBodyWriter(100, turns.schedule);
  let next = 0;
  writer.end(fakeResponse(String(next++), ended), Buffer.alloc(100));
  // Two bodies arrive per turn and one leaves: the queue grows, and written slots are dropped as it goes.
  for (let turn = 0; turn < 3_000; turn++) {
    writer.end(fakeResponse(String(next++), ended), Buffer.alloc(100));
    writer.end(fakeResponse(String(next++), ended), Buffer.alloc(100));
    turns.endTurn();
  }
  assert.deepEqual(
    ended,
    Array.from({ length: 3_001 }, (_, i) => `${i}:100`),
  );
  assert.equal(writer.queued, next - 3_001);
});
