// One rung's live playlist as its files arrive: parts grouped into 6 s segments whose bytes are the
// parts', the playlist written after each part; once it ends, its last segments' parts still listed
// (or none, as workflows started before that have it); a standard broadcast's segments listed as they come.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { readLivePlaylistPosition } from '@kino/proto/contract';
import { RungPlaylist } from './live-playlists.ts';

const start = Date.parse('2026-11-29T05:00:00.000Z');

function fakeStorage() {
  const objects = new Map<string, Buffer>();
  const puts: string[] = [];
  return {
    objects,
    puts,
    put: async (name: string, data: Buffer) => {
      objects.set(name, data);
      puts.push(name);
    },
    playlist: () => objects.get('360p/playlist.m3u8')!.toString('utf8'),
  };
}

const partName = (k: number) => `part-${String(k).padStart(5, '0')}.m4s`;
const media = (k: number, seconds = 1) => ({
  durationSeconds: seconds,
  programDateTimeMs: start + k * 1000,
  independent: true,
});

describe('a low-latency rung', () => {
  it('lists parts as they come, makes a segment of six, and ends without parts when not asked to keep them', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, 1, storage.put);
    await rung.take('init.mp4', Buffer.from('init'), undefined);
    for (let k = 0; k < 6; k++) await rung.take(partName(k), Buffer.from(`p${k}`), media(k));
    let text = storage.playlist();
    assert.equal(
      readLivePlaylistPosition(text).segments,
      0,
      'six parts, no segment yet: the next part might continue it',
    );
    assert.equal(readLivePlaylistPosition(text).openParts, 6);
    assert.match(text, /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-00006.m4s"/);
    assert.match(text, /#EXT-X-PART-INF:PART-TARGET=1.000/);
    assert.match(text, /#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=36.0,PART-HOLD-BACK=3.000/);
    await rung.take(partName(6), Buffer.from('p6'), media(6));
    text = storage.playlist();
    assert.deepEqual(readLivePlaylistPosition(text), {
      targetDuration: 6,
      segments: 1,
      openParts: 1,
      ended: false,
      canSkipUntil: 36,
    });
    assert.equal(storage.objects.get('360p/seg-00000.m4s')!.toString(), 'p0p1p2p3p4p5', 'the parts back to back');
    assert.ok(
      storage.puts.indexOf('360p/seg-00000.m4s') < storage.puts.indexOf(`360p/${partName(6)}`),
      'the segment is stored before the part that follows it is listed',
    );
    assert.match(
      text,
      /#EXT-X-PROGRAM-DATE-TIME:2026-11-29T05:00:00.000Z\n(#EXT-X-PART:[^\n]+\n){6}#EXTINF:6.000000,\nseg-00000.m4s/,
    );
    assert.match(
      text,
      /#EXT-X-PROGRAM-DATE-TIME:2026-11-29T05:00:06.000Z\n#EXT-X-PART:DURATION=1.000000,URI="part-00006.m4s",INDEPENDENT=YES/,
    );
    await rung.end({ keepParts: false });
    text = storage.playlist();
    assert.doesNotMatch(text, /#EXT-X-PART|PRELOAD-HINT|SERVER-CONTROL|PART-INF/, 'an ended playlist has no parts');
    assert.match(text, /#EXTINF:1.000000,\nseg-00001.m4s\n#EXT-X-ENDLIST\n$/);
    assert.deepEqual(
      rung.partNames,
      [0, 1, 2, 3, 4, 5, 6].map((k) => `360p/${partName(k)}`),
      'the parts to remove',
    );
    assert.deepEqual(
      rung.segments().map((s) => [s.name, s.durationSeconds, s.sizeBytes]),
      [
        ['seg-00000.m4s', 6, 12],
        ['seg-00001.m4s', 1, 2],
      ],
    );
  });

  it('ends keeping its last segments’ parts listed, the open segment closed, no preload hint', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, 1, storage.put);
    // Four whole segments, then two parts of a fifth: the broadcast ends while a player loads it.
    for (let k = 0; k < 26; k++) await rung.take(partName(k), Buffer.from(`p${k}`), media(k));
    await rung.end({ keepParts: true });
    const text = storage.playlist();
    assert.equal(storage.objects.get('360p/seg-00004.m4s')!.toString(), 'p24p25', 'the open segment closed');
    assert.match(
      text,
      /#EXT-X-PART:DURATION=1.000000,URI="part-00025.m4s",INDEPENDENT=YES\n#EXTINF:2.000000,\nseg-00004.m4s\n#EXT-X-ENDLIST\n$/,
    );
    assert.match(text, /#EXT-X-PART-INF:PART-TARGET=1.000/, 'the part target, which EXT-X-PART requires');
    assert.doesNotMatch(text, /PRELOAD-HINT/, 'no part comes after the end');
    const listed = [...text.matchAll(/#EXT-X-PART:[^\n]*URI="(part-\d+\.m4s)"/g)].map((m) => m[1]);
    assert.deepEqual(
      listed,
      [12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25].map(partName),
      'the parts of the last three segments, as while live',
    );
    assert.ok(listed.every((name) => storage.objects.has(`360p/${name}`)));
    assert.deepEqual(readLivePlaylistPosition(text), {
      targetDuration: 6,
      segments: 5,
      openParts: 0,
      ended: true,
      canSkipUntil: 36,
    });
  });

  it('closes a segment at six parts a frame short (29.97 fps), and only before a keyframe', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, 1, storage.put);
    const short = 29 / 29.97;
    for (let k = 0; k < 6; k++) await rung.take(partName(k), Buffer.from('x'), media(k, short));
    await rung.take(partName(6), Buffer.from('x'), { ...media(6, short), independent: false });
    assert.equal(readLivePlaylistPosition(storage.playlist()).segments, 0, 'not before a part without a keyframe');
    await rung.take(partName(7), Buffer.from('x'), media(7, short));
    assert.equal(rung.segments()[0]!.durationSeconds, Math.round(7 * short * 1e6) / 1e6);
  });

  it('marks the first part after a gap with a discontinuity, starting a segment', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, 1, storage.put);
    for (let k = 0; k < 3; k++) await rung.take(partName(k), Buffer.from('x'), media(k));
    rung.markGap();
    await rung.take(partName(3), Buffer.from('x'), media(30));
    const text = storage.playlist();
    assert.match(
      text,
      /#EXTINF:3.000000,\nseg-00000.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-29T05:00:30.000Z/,
    );
  });
});

describe('the end of a low-latency rung', () => {
  it('lists its last parts live with no preload hint once the input ends, then ends as before', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, 1, storage.put);
    for (let k = 0; k < 26; k++) await rung.take(partName(k), Buffer.from(`p${k}`), media(k));
    await rung.listLastParts();
    let text = storage.playlist();
    assert.doesNotMatch(text, /PRELOAD-HINT|ENDLIST/, 'live, and no part to come');
    assert.match(
      text,
      /#EXT-X-PART:DURATION=1.000000,URI="part-00024.m4s",INDEPENDENT=YES\n#EXT-X-PART:DURATION=1.000000,URI="part-00025.m4s",INDEPENDENT=YES\n$/,
      'the open segment’s parts, the segment not closed yet',
    );
    assert.ok(!storage.objects.has('360p/seg-00004.m4s'));
    await rung.end({ keepParts: true });
    text = storage.playlist();
    assert.equal(storage.objects.get('360p/seg-00004.m4s')!.toString(), 'p24p25');
    assert.match(text, /URI="part-00025.m4s",INDEPENDENT=YES\n#EXTINF:2.000000,\nseg-00004.m4s\n#EXT-X-ENDLIST\n$/);
  });
});

describe('the last part of a low-latency rung', () => {
  it('is listed with no preload hint, the playlist still live: no part is promised that will not come', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, 1, storage.put);
    for (let k = 0; k < 8; k++) await rung.take(partName(k), Buffer.from(`p${k}`), media(k));
    assert.match(storage.playlist(), /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-00008.m4s"/);
    await rung.take(partName(8), Buffer.from('p8'), { ...media(8, 0.4), last: true });
    const text = storage.playlist();
    assert.match(text, /#EXT-X-PART:DURATION=0.400000,URI="part-00008.m4s",INDEPENDENT=YES\n$/);
    assert.doesNotMatch(text, /PRELOAD-HINT|ENDLIST/);
  });
});

describe('a standard rung', () => {
  it('lists each segment as it comes, with its time, and no parts', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, undefined, storage.put);
    await rung.take('seg-00000.m4s', Buffer.from('s0'), media(0, 6));
    const text = storage.playlist();
    assert.match(text, /#EXT-X-PROGRAM-DATE-TIME:2026-11-29T05:00:00.000Z\n#EXTINF:6.000000,\nseg-00000.m4s\n$/);
    assert.doesNotMatch(text, /PART|SERVER-CONTROL|ENDLIST/);
    await rung.end({ keepParts: true });
    assert.match(storage.playlist(), /#EXT-X-ENDLIST\n$/);
    assert.doesNotMatch(storage.playlist(), /PART/, 'none to keep');
  });
});

/** A rung as storage holds it after `storage` took its files: what a writer taking it over reads back. */
function storedRung(storage: ReturnType<typeof fakeStorage>, openParts: number[]) {
  return {
    playlist: storage.playlist(),
    openPartBytes: openParts.map((k) => storage.objects.get(`360p/${partName(k)}`)!),
    partNames: [...storage.objects.keys()].filter((name) => name.startsWith('360p/part-')),
  };
}

describe('a rung taken over from what is stored', () => {
  it('is the state it was stored from: the same playlist and segments as the next parts come', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, 1, storage.put);
    await rung.take('init.mp4', Buffer.from('init'), undefined);
    for (let k = 0; k < 14; k++) await rung.take(partName(k), Buffer.from(`p${k}`), media(k));
    const copy = fakeStorage();
    const resumed = RungPlaylist.resume('360p', 6, 1, copy.put, storedRung(storage, [12, 13]));
    assert.deepEqual(
      resumed.segments().map((s) => [s.name, s.durationSeconds]),
      [
        ['seg-00000.m4s', 6],
        ['seg-00001.m4s', 6],
      ],
    );
    assert.equal(resumed.nextFileNumber(), 14);
    for (let k = 14; k < 20; k++) {
      await rung.take(partName(k), Buffer.from(`p${k}`), media(k));
      await resumed.take(partName(k), Buffer.from(`p${k}`), media(k));
    }
    assert.equal(copy.playlist(), storage.playlist(), 'the same playlist');
    assert.equal(copy.objects.get('360p/seg-00002.m4s')!.toString(), 'p12p13p14p15p16p17', 'the open parts kept');
    await resumed.sizeSegments(async (name) => storage.objects.get(name)!.length);
    await Promise.all([rung.end({ keepParts: true }), resumed.end({ keepParts: true })]);
    assert.deepEqual(resumed.segments(), rung.segments(), 'names, lengths and sizes');
    assert.deepEqual(resumed.partNames.toSorted(), rung.partNames.toSorted(), 'every part to remove');
  });

  it('closes the lost node’s open segment as it is, then numbers on after a discontinuity', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, 1, storage.put);
    for (let k = 0; k < 9; k++) await rung.take(partName(k), Buffer.from(`p${k}`), media(k));
    // The lost node stored part 9 but the playlist never named it (lost between the two writes).
    await storage.put(`360p/${partName(9)}`, Buffer.from('p9'));
    const resumed = RungPlaylist.resume('360p', 6, 1, storage.put, storedRung(storage, [6, 7, 8]));
    const first = resumed.nextFileNumber();
    assert.equal(first, 10, 'past every part stored, named or not');
    await resumed.continueAfterGap(first);
    let text = storage.playlist();
    assert.equal(storage.objects.get('360p/seg-00001.m4s')!.toString(), 'p6p7p8', 'a short segment of its parts');
    assert.equal(resumed.recordedSeconds(), 9, 'the next node’s times start where the recording ends');
    assert.match(
      text,
      /#EXTINF:3.000000,\nseg-00001.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-00010.m4s"\n$/,
    );
    await resumed.take(partName(10), Buffer.from('p10'), media(14));
    await resumed.take(partName(11), Buffer.from('p11'), media(15));
    text = storage.playlist();
    assert.match(
      text,
      /seg-00001.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-29T05:00:14.000Z\n#EXT-X-PART:DURATION=1.000000,URI="part-00010.m4s"/,
    );
    assert.equal(text.match(/#EXT-X-DISCONTINUITY/g)!.length, 1, 'one discontinuity');
    await resumed.end({ keepParts: true });
    assert.deepEqual(
      resumed.segments().map((s) => s.name),
      ['seg-00000.m4s', 'seg-00001.m4s', 'seg-00002.m4s'],
      'the numbering goes on',
    );
    assert.equal(storage.objects.get('360p/seg-00002.m4s')!.toString(), 'p10p11');
  });

  it('continues a standard rung at its next segment number', async () => {
    const storage = fakeStorage();
    const rung = new RungPlaylist('360p', 6, undefined, storage.put);
    for (let k = 0; k < 3; k++) await rung.take(`seg-0000${k}.m4s`, Buffer.from(`s${k}`), media(k * 6, 6));
    const resumed = RungPlaylist.resume('360p', 6, undefined, storage.put, storedRung(storage, []));
    assert.equal(resumed.nextFileNumber(), 3);
    await resumed.continueAfterGap(3);
    await resumed.take('seg-00003.m4s', Buffer.from('s3'), media(40, 6));
    assert.match(
      storage.playlist(),
      /seg-00002.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:[^\n]+\n#EXTINF:6.000000,\nseg-00003.m4s\n$/,
    );
  });
});
