import { afterEach, beforeEach, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapWindowPassesFirstSegment as joinsPieces } from '@kino/proto/contract';
import { PieceJoins, segmentOfLaterPiece, withPiecesJoined } from './bootstrap-pieces.ts';

describe('bootstrap pieces', () => {
  let outDir: string;
  beforeEach(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'kino-pieces-'));
    await mkdir(join(outDir, '720p'));
  });
  afterEach(() => rm(outDir, { recursive: true, force: true }));

  const piece = (n: number) => writeFile(join(outDir, '720p', `boot-${n}.m4s`), `piece ${n};`);

  it('a window from 2 s past 6 s is muxed into pieces; one inside the first segment or after it is not', () => {
    assert.equal(joinsPieces({ bootstrap: true, startSeconds: 2, durationSeconds: 16 }), true);
    assert.equal(joinsPieces({ bootstrap: true, startSeconds: 2, durationSeconds: 4 }), false);
    assert.equal(joinsPieces({ startSeconds: 6, durationSeconds: 12 }), false);
    assert.deepEqual(
      ['boot-1.m4s', '720p/boot-2.m4s', '720p/boot-3.m4s', '720p/boot-5.m4s', '720p/boot-6.m4s', 'seg-00001.m4s'].map(
        segmentOfLaterPiece,
      ),
      [undefined, undefined, 1, 1, 2, undefined],
    );
  });

  it('each segment is joined once its third piece is closed, the last one at the end; bootstrap segments go up as they are', async () => {
    const joins = new PieceJoins(outDir);
    for (const n of [1, 2, 3, 4]) await piece(n);
    const names = (await readdir(join(outDir, '720p'))).sort().map((name) => `720p/${name}`);
    assert.deepEqual(
      await joins.uploadable(names),
      ['720p/boot-1.m4s', '720p/boot-2.m4s'],
      'segment 1 is not whole yet',
    );
    await piece(5);
    await piece(6);
    const later = (await readdir(join(outDir, '720p'))).sort().map((name) => `720p/${name}`);
    assert.deepEqual(await joins.uploadable(later), ['720p/boot-1.m4s', '720p/boot-2.m4s', '720p/seg-00001.m4s']);
    assert.deepEqual(await joins.uploadable(later), ['720p/boot-1.m4s', '720p/boot-2.m4s'], 'joined once');
    assert.equal(await readFile(join(outDir, '720p', 'seg-00001.m4s'), 'utf8'), 'piece 3;piece 4;piece 5;');
    // The video ends one piece into segment 2.
    await joins.joinRest(['720p/']);
    assert.equal(await readFile(join(outDir, '720p', 'seg-00002.m4s'), 'utf8'), 'piece 6;');
    assert.ok(!(await readdir(join(outDir, '720p'))).some((name) => name.endsWith('.tmp')));
  });

  it("ffmpeg's playlist of pieces reads as the segments uploaded, each as long as its pieces", () => {
    const playlist = withPiecesJoined({
      targetDuration: 2,
      endList: true,
      segments: [1, 2, 3, 4, 5, 6].map((n) => ({ uri: `boot-${n}.m4s`, durationSeconds: n === 6 ? 1.3 : 2 })),
    });
    assert.deepEqual(playlist.segments, [
      { uri: 'boot-1.m4s', durationSeconds: 2 },
      { uri: 'boot-2.m4s', durationSeconds: 2 },
      { uri: 'seg-00001.m4s', durationSeconds: 6 },
      { uri: 'seg-00002.m4s', durationSeconds: 1.3 },
    ]);
  });
});
