// The live playlist's format as its writer renders it and delivery reads it: which blocking reloads
// a playlist answers, which ask too far ahead, the delta update, which with the segments it
// skipped is the whole playlist again, and the ended playlist, with its last parts and then without.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import {
  answersReload,
  awaitsNextPart,
  deltaLivePlaylist,
  findLivePart,
  listsPart,
  readLivePlaylist,
  readLivePlaylistPosition,
  reloadTooFarAhead,
  renderLivePlaylist,
  withoutParts,
  type LivePlaylist,
} from './live-playlist.ts';

/** `segments` complete 6 s segments of six 1 s parts, then `openParts` parts of the next. */
function broadcast(segments: number, openParts: number): LivePlaylist {
  const part = (k: number) => ({
    name: `part-${String(k).padStart(5, '0')}.m4s`,
    durationSeconds: 1,
    independent: true,
  });
  const time = (s: number) => new Date(Date.UTC(2026, 10, 29, 5, 0, s)).toISOString();
  return {
    segmentSeconds: 6,
    partSeconds: 1,
    segments: Array.from({ length: segments }, (_, n) => ({
      name: `seg-${String(n).padStart(5, '0')}.m4s`,
      durationSeconds: 6,
      programDateTime: time(n * 6),
      discontinuity: false,
      parts: Array.from({ length: 6 }, (_, k) => part(n * 6 + k)),
    })),
    open: {
      programDateTime: time(segments * 6),
      discontinuity: false,
      parts: Array.from({ length: openParts }, (_, k) => part(segments * 6 + k)),
      nextPartName: part(segments * 6 + openParts).name,
    },
    ended: false,
  };
}

describe('blocking reloads', () => {
  const position = readLivePlaylistPosition(renderLivePlaylist(broadcast(3, 2)));

  it('reads where a playlist stands', () => {
    assert.deepEqual(position, { targetDuration: 6, segments: 3, openParts: 2, ended: false, canSkipUntil: 36 });
  });

  it('answers a segment it holds and a part it holds, and holds the rest', () => {
    assert.ok(answersReload(position, { msn: 2 }));
    assert.ok(answersReload(position, { msn: 2, part: 5 }));
    assert.ok(answersReload(position, { msn: 2, part: 9 }), 'past a whole segment’s parts: the next, which is there');
    assert.ok(answersReload(position, { msn: 3, part: 1 }));
    assert.ok(!answersReload(position, { msn: 3, part: 2 }), 'the next part');
    assert.ok(!answersReload(position, { msn: 3 }), 'the segment being made');
    assert.ok(!answersReload(position, { msn: 4, part: 0 }));
  });

  it('refuses a segment past the next, or a part more than three past the last', () => {
    assert.ok(!reloadTooFarAhead(position, { msn: 4, part: 0 }), 'the segment after the one being made');
    assert.ok(reloadTooFarAhead(position, { msn: 5 }), 'two past the one being made');
    assert.ok(!reloadTooFarAhead(position, { msn: 3, part: 4 }));
    assert.ok(reloadTooFarAhead(position, { msn: 3, part: 5 }));
  });

  it('answers anything once the playlist has ended', () => {
    const ended = readLivePlaylistPosition(renderLivePlaylist({ ...broadcast(3, 0), ended: true }));
    assert.ok(answersReload(ended, { msn: 9, part: 3 }));
    assert.ok(!reloadTooFarAhead(ended, { msn: 9 }));
  });
});

describe('parts', () => {
  it('lists a part made, not the next part its preload hint names', () => {
    const playlist = renderLivePlaylist(broadcast(3, 2));
    assert.match(playlist, /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-00020.m4s"/);
    assert.ok(listsPart(playlist, 'part-00019.m4s'));
    assert.ok(listsPart(playlist, 'part-00012.m4s'));
    assert.ok(!listsPart(playlist, 'part-00020.m4s'), 'the hint names a part not made yet');
  });
});

describe('the end of a broadcast', () => {
  it('keeps the last segments’ parts listed once ended, no preload hint, answering every reload at once', () => {
    const ended = renderLivePlaylist({ ...broadcast(5, 0), open: undefined, ended: true });
    assert.match(ended, /#EXT-X-PART-INF:PART-TARGET=1.000\n/);
    assert.doesNotMatch(ended, /PRELOAD-HINT/);
    assert.match(ended, /URI="part-00029.m4s",INDEPENDENT=YES\n#EXTINF:6.000000,\nseg-00004.m4s\n#EXT-X-ENDLIST\n$/);
    assert.ok(listsPart(ended, 'part-00012.m4s') && !listsPart(ended, 'part-00011.m4s'), 'the last three segments’');
    const position = readLivePlaylistPosition(ended);
    assert.ok(answersReload(position, { msn: 9, part: 0 }) && !reloadTooFarAhead(position, { msn: 9 }));
    assert.equal(deltaLivePlaylist(ended), ended, 'an ended playlist is answered whole');
    assert.equal(renderLivePlaylist(readLivePlaylist(ended)), ended, 'read back as written (the grace’s end reads it)');
  });

  it('lists its last parts live with no preload hint before it ends: read back as written, no part awaited', () => {
    const live = broadcast(4, 2);
    const last = renderLivePlaylist({ ...live, open: { ...live.open!, nextPartName: '' } });
    assert.doesNotMatch(last, /PRELOAD-HINT|ENDLIST/);
    assert.match(last, /URI="part-00025.m4s",INDEPENDENT=YES\n$/, 'the open segment’s parts, not closed');
    assert.deepEqual(readLivePlaylistPosition(last), {
      targetDuration: 6,
      segments: 4,
      openParts: 2,
      ended: false,
      canSkipUntil: 36,
    });
    assert.deepEqual(readLivePlaylist(last).open, { ...live.open!, nextPartName: '' });
    assert.equal(renderLivePlaylist(readLivePlaylist(last)), last, 'read back as written (a takeover reads it)');
    assert.ok(awaitsNextPart(renderLivePlaylist(live)), 'live, the hinted part is coming');
    assert.ok(!awaitsNextPart(last), 'no part comes after the last');
    assert.ok(!awaitsNextPart(renderLivePlaylist({ ...broadcast(5, 0), open: undefined, ended: true })));
  });

  it('is the on-demand playlist without its parts: no part, server control or part target', () => {
    const playlist = { ...broadcast(5, 0), open: undefined, ended: true };
    const vod = renderLivePlaylist(withoutParts(readLivePlaylist(renderLivePlaylist(playlist))));
    assert.doesNotMatch(vod, /PART|SERVER-CONTROL|PRELOAD-HINT/);
    assert.match(vod, /^#EXTM3U\n#EXT-X-VERSION:6\n/);
    assert.equal(
      vod,
      renderLivePlaylist({ ...playlist, partSeconds: undefined }),
      'a standard broadcast’s ended playlist',
    );
    assert.deepEqual(
      readLivePlaylist(vod).segments.map((s) => [s.name, s.durationSeconds, s.programDateTime]),
      playlist.segments.map((s) => [s.name, s.durationSeconds, s.programDateTime]),
      'every segment, its length and its time',
    );
  });
});

describe('delta updates', () => {
  it('skip the segments older than CAN-SKIP-UNTIL; with them put back, the playlist is whole', () => {
    const full = renderLivePlaylist(broadcast(10, 2));
    const delta = deltaLivePlaylist(full);
    // 62 s long, 36 s may not be skipped: the first five segments (0–30 s) start more than 36 s before its end.
    const skipped = Number(/#EXT-X-SKIP:SKIPPED-SEGMENTS=(\d+)/.exec(delta)?.[1]);
    assert.equal(skipped, 5);
    assert.equal(delta.split('\n').filter((l) => l.startsWith('seg-')).length, 5);
    const lines = full.split('\n');
    const firstSegment = lines.findIndex((l) => l.startsWith('#EXT-X-MAP:')) + 1;
    const afterSkipped = lines.indexOf('seg-00004.m4s') + 1;
    const restored = delta.replace(
      `#EXT-X-SKIP:SKIPPED-SEGMENTS=${skipped}`,
      lines.slice(firstSegment, afterSkipped).join('\n'),
    );
    assert.equal(restored, full);
  });

  it('skips nothing from a playlist shorter than CAN-SKIP-UNTIL, and answers a standard one whole', () => {
    assert.match(deltaLivePlaylist(renderLivePlaylist(broadcast(2, 1))), /#EXT-X-SKIP:SKIPPED-SEGMENTS=0\n/);
    const standard = renderLivePlaylist({ ...broadcast(10, 0), partSeconds: undefined });
    assert.equal(deltaLivePlaylist(standard), standard);
  });
});

describe('where a part stands', () => {
  it('names the segment a listed part is of, and whether it is that segment’s first', () => {
    // Parts are listed for segments 2, 3 and 4 (the last three whole ones) and the open segment 5.
    const text = renderLivePlaylist(broadcast(5, 2));
    assert.deepEqual(findLivePart(text, 'part-00012.m4s'), { segment: 2, first: true });
    assert.deepEqual(findLivePart(text, 'part-00017.m4s'), { segment: 2, first: false });
    assert.deepEqual(findLivePart(text, 'part-00024.m4s'), { segment: 4, first: true });
    assert.deepEqual(findLivePart(text, 'part-00030.m4s'), { segment: 5, first: true });
    assert.deepEqual(findLivePart(text, 'part-00031.m4s'), { segment: 5, first: false });
  });

  it('finds no part the playlist does not list: listed no more, only hinted, or ended and written without parts', () => {
    const text = renderLivePlaylist(broadcast(5, 2));
    assert.equal(findLivePart(text, 'part-00000.m4s'), undefined);
    assert.equal(findLivePart(text, 'part-00032.m4s'), undefined, 'the preload hint is not a part yet');
    const ended = { ...broadcast(6, 0), open: undefined, ended: true };
    assert.deepEqual(findLivePart(renderLivePlaylist(ended), 'part-00030.m4s'), { segment: 5, first: true });
    assert.equal(findLivePart(renderLivePlaylist(withoutParts(ended)), 'part-00030.m4s'), undefined);
  });
});

describe('a stored playlist read back (a writer taking over)', () => {
  it('gives the playlist it was rendered from: segments, the open segment, the next part', () => {
    const playlist = broadcast(5, 2);
    playlist.segments[3]!.discontinuity = true;
    playlist.segments[4]!.durationSeconds = 5.966667;
    const text = renderLivePlaylist(playlist);
    const read = readLivePlaylist(text);
    assert.equal(renderLivePlaylist(read), text);
    assert.deepEqual(read.open, playlist.open);
    assert.equal(read.partSeconds, 1);
    assert.deepEqual(
      read.segments.map((s) => [s.name, s.durationSeconds, s.programDateTime, s.discontinuity]),
      playlist.segments.map((s) => [s.name, s.durationSeconds, s.programDateTime, s.discontinuity]),
    );
    // Only the last three segments' parts are listed: the older ones' are not in the text.
    assert.deepEqual(read.segments.slice(2), playlist.segments.slice(2));
    assert.deepEqual(read.segments[0]!.parts, []);
  });

  it('reads an open segment after a gap with no part yet, a standard playlist and an ended one', () => {
    const gap = broadcast(2, 0);
    gap.open = { programDateTime: '', discontinuity: true, parts: [], nextPartName: 'part-00020.m4s' };
    const gapText = renderLivePlaylist(gap);
    assert.deepEqual(readLivePlaylist(gapText).open, gap.open);
    assert.equal(renderLivePlaylist(readLivePlaylist(gapText)), gapText);
    const standard = renderLivePlaylist({ ...broadcast(3, 0), partSeconds: undefined, open: undefined });
    assert.equal(readLivePlaylist(standard).partSeconds, undefined);
    assert.equal(renderLivePlaylist(readLivePlaylist(standard)), standard);
    const ended = renderLivePlaylist({ ...broadcast(3, 0), open: undefined, ended: true });
    assert.equal(readLivePlaylist(ended).ended, true);
  });
});
