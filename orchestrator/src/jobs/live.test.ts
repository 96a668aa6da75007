// The end of a low-latency broadcast's playlists: its last parts listed live with no preload hint
// a part target before the playlist ends (`endStoredBroadcast`, the same end as an encode's); and
// the end of the parts an ended playlist kept listing (`endKeptParts`, three target durations
// after the broadcast's end): the playlist written without them, the parts it did not list removed,
// those it listed kept for the players holding it; again after a retry, the same.
import { afterEach, describe, it, vi } from 'vitest';
import assert from 'node:assert/strict';
import {
  lastPartsListedSeconds,
  readLivePlaylist,
  renderLivePlaylist,
  withoutParts,
  type LivePlaylist,
} from '@kino/proto/contract';
import type { EncodeOutcome, SourceProbe } from '../activity-types.ts';
import type { RenditionPlan } from '../ladder.ts';
import { endKeptParts, endStoredBroadcast } from './live.ts';

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

describe('the end of a low-latency broadcast', () => {
  afterEach(() => vi.useRealTimers());

  it('lists its last parts live with no preload hint, and ends only a part target later', async () => {
    vi.useFakeTimers();
    // Four whole segments and two parts of a fifth stored, its preload hint naming a part never made.
    const live: LivePlaylist = { ...endedBroadcast(4), ended: false };
    live.open = {
      programDateTime: new Date(Date.UTC(2026, 10, 29, 5, 0, 24)).toISOString(),
      discontinuity: false,
      parts: [24, 25].map((k) => ({ name: partName(k), durationSeconds: 1, independent: true })),
      nextPartName: partName(26),
    };
    const objects = new Map<string, string>([[`${prefix}playlist.m3u8`, renderLivePlaylist(live)]]);
    for (let k = 0; k < 26; k++) objects.set(`${prefix}${partName(k)}`, `p${k}`);
    const written: string[] = [];
    const storage = {
      ...fakeStorage(objects),
      put: (key: string, body: string | Uint8Array) => {
        if (key.endsWith('playlist.m3u8')) written.push(Buffer.from(body).toString());
        objects.set(key, Buffer.from(body).toString());
        return Promise.resolve();
      },
      head: (key: string) => Promise.resolve(objects.has(key) ? { size: objects.get(key)!.length } : undefined),
    };
    const rung = { key: '360p', segmentSeconds: 6, frameRate: 30 } as RenditionPlan;
    const ending = endStoredBroadcast(
      { storage: storage as never },
      {
        videoId: 'vid_1',
        sourceUrl: 'rtmp://ingest/live',
        renditions: [rung],
        probe: {} as SourceProbe,
        partSeconds: 1,
        keepEndedParts: true,
      },
      [{ key: '360p' } as EncodeOutcome],
    );
    await vi.advanceTimersByTimeAsync(lastPartsListedSeconds(1) * 1000 - 1);
    assert.equal(written.length, 1, 'one playlist written before the part target is over');
    assert.doesNotMatch(written[0]!, /PRELOAD-HINT|ENDLIST/, 'live, and no part to come');
    assert.deepEqual(
      readLivePlaylist(written[0]!).open?.parts.map((part) => part.name),
      [partName(24), partName(25)],
    );
    await vi.advanceTimersByTimeAsync(1);
    await ending;
    assert.equal(written.length, 2);
    assert.match(
      written[1]!,
      /URI="part-00025.m4s",INDEPENDENT=YES\n#EXTINF:2.000000,\nseg-00004.m4s\n#EXT-X-ENDLIST\n$/,
    );
  });
});
