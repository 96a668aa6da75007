// The end of the parts an ended low-latency playlist kept listing (`endKeptParts`, three target
// durations after the broadcast's end): the playlist written without them, the parts it did not
// list removed, those it listed kept for the players holding it; again after a retry, the same.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { renderLivePlaylist, withoutParts, type LivePlaylist } from '@kino/proto/contract';
import { endKeptParts } from './live.ts';

const prefix = 'videos/vid_1/hls/360p/';
const partName = (k: number) => `part-${String(k).padStart(5, '0')}.m4s`;

/** A broadcast of `segments` 6 s segments of six 1 s parts, ended. */
function endedBroadcast(segments: number): LivePlaylist {
  return {
    segmentSeconds: 6,
    partSeconds: 1,
    segments: Array.from({ length: segments }, (_, n) => ({
      name: `seg-${String(n).padStart(5, '0')}.m4s`,
      durationSeconds: 6,
      programDateTime: new Date(Date.UTC(2026, 10, 29, 5, 0, n * 6)).toISOString(),
      discontinuity: false,
      parts: Array.from({ length: 6 }, (_, k) => ({
        name: partName(n * 6 + k),
        durationSeconds: 1,
        independent: true,
      })),
    })),
    ended: true,
  };
}

function fakeStorage(objects: Map<string, string>) {
  return {
    get: (key: string) => Promise.resolve(objects.has(key) ? Buffer.from(objects.get(key)!) : undefined),
    list: (start: string) => Promise.resolve([...objects.keys()].filter((key) => key.startsWith(start)).sort()),
    deleteMany: (keys: readonly string[]) => Promise.resolve(void keys.forEach((key) => objects.delete(key))),
    put: (key: string, body: string | Uint8Array) =>
      Promise.resolve(void objects.set(key, Buffer.from(body).toString())),
  };
}

describe('the end of an ended broadcast’s kept parts', () => {
  it('writes the playlist without parts and removes the parts it did not list, again alike', async () => {
    const playlist = endedBroadcast(5);
    const objects = new Map<string, string>([[`${prefix}playlist.m3u8`, renderLivePlaylist(playlist)]]);
    for (let k = 0; k < 30; k++) objects.set(`${prefix}${partName(k)}`, `p${k}`);
    const storage = fakeStorage(objects);
    await endKeptParts({ storage }, { videoId: 'vid_1', renditions: ['360p', '720p'] });
    assert.equal(objects.get(`${prefix}playlist.m3u8`), renderLivePlaylist(withoutParts(playlist)));
    const kept = Array.from({ length: 18 }, (_, k) => `${prefix}${partName(12 + k)}`);
    assert.deepEqual(await storage.list(`${prefix}part-`), kept, 'the last three segments’ parts, which it listed');
    // A retry (the activity's worker lost after the playlist was written): nothing more goes.
    await endKeptParts({ storage }, { videoId: 'vid_1', renditions: ['360p'] });
    assert.deepEqual(await storage.list(`${prefix}part-`), kept);
    assert.equal(objects.get(`${prefix}playlist.m3u8`), renderLivePlaylist(withoutParts(playlist)));
  });

  it('writes nothing for a rung with no playlist (its video deleted meanwhile)', async () => {
    const objects = new Map<string, string>();
    await endKeptParts({ storage: fakeStorage(objects) }, { videoId: 'vid_1', renditions: ['360p'] });
    assert.equal(objects.size, 0);
  });
});
