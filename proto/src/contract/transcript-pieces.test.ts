import assert from 'node:assert/strict';
import { test } from 'vitest';
import {
  joinTranscriptPieces,
  planTranscriptPieces,
  seamCut,
  transcriptPieceOverlapSeconds,
  type HeardPiece,
} from './transcript-pieces.ts';
import { cuesFromWords, type SpokenWord } from './transcripts.ts';

/** Words of 0.25 s with 0.05 s between them, from `start`. */
const spoken = (text: string, start: number): SpokenWord[] =>
  text.split(' ').map((word, i) => ({
    startSeconds: start + i * 0.3,
    endSeconds: start + i * 0.3 + 0.25,
    text: ` ${word}`,
  }));

// Three sentences with pauses between them: 0.1–2.75, 4–5.45 and 7.5–9.85.
const talk = [
  ...spoken('The quick brown fox jumps over the lazy dog.', 0.1),
  ...spoken('It ran into the woods.', 4),
  ...spoken('Nobody saw it again that day, or ever.', 7.5),
];

/** What a node hears of [start, end]: the words inside, a word cut by an edge misheard, times off by `shift`. */
function hear(start: number, end: number, shift: number): HeardPiece {
  const words = talk
    .filter((word) => word.endSeconds > start && word.startSeconds < end)
    .map((word) => {
      const cut = word.startSeconds < start || word.endSeconds > end;
      return {
        startSeconds: Math.max(start, word.startSeconds + shift),
        endSeconds: Math.min(end, word.endSeconds + shift),
        text: cut ? ' uh' : word.text,
      };
    });
  return { startSeconds: start, endSeconds: end, words };
}

const textOf = (words: readonly SpokenWord[]) => words.map((word) => word.text.trim()).join(' ');

test('pieces overlap on both sides of each seam, and a short video is one piece', () => {
  const o = transcriptPieceOverlapSeconds;
  assert.deepEqual(planTranscriptPieces(21.4, 8), [
    { index: 0, startSeconds: 0, endSeconds: 10.133 },
    { index: 1, startSeconds: 4.133, endSeconds: 17.267 },
    { index: 2, startSeconds: 11.267, endSeconds: 21.4 },
  ]);
  assert.deepEqual(planTranscriptPieces(21.4, 600), [{ index: 0, startSeconds: 0, endSeconds: 21.4 }]);
  assert.deepEqual(planTranscriptPieces(21.4, 0), [{ index: 0, startSeconds: 0, endSeconds: 21.4 }]);
  // 7200 s in 600 s pieces: twelve, each seam overlapped.
  const long = planTranscriptPieces(7200, 600);
  assert.equal(long.length, 12);
  long.slice(1).forEach((piece, i) => assert.equal(Math.round(long[i]!.endSeconds - piece.startSeconds), 2 * o));
});

test('joined pieces hold every word once, in order, whatever the seams cut through', () => {
  // Seams at every tenth of a second across the talk, with each piece's times off by up to 0.1 s.
  for (let seam = 3; seam <= 8; seam += 0.1) {
    const pieces = [hear(0, seam + 3, 0.08), hear(seam - 3, 11, -0.06)];
    const joined = joinTranscriptPieces(pieces);
    assert.equal(textOf(joined), textOf(talk), `seam at ${seam.toFixed(1)} s`);
    joined.slice(1).forEach((word, i) => assert.ok(word.startSeconds >= joined[i]!.startSeconds));
  }
});

test('the cut falls in the pause both pieces hear, so cues across a seam are those of the whole', () => {
  const pieces = [hear(0, 6, 0.05), hear(1, 11, -0.05)];
  const cut = seamCut(pieces[0]!, pieces[1]!);
  // The overlap is 1–6; from 2 to 5 (a second from each edge) the pause 2.75–4 is the widest silence.
  assert.ok(cut > 2.8 && cut < 3.95, `cut at ${cut}`);
  assert.deepEqual(
    cuesFromWords(joinTranscriptPieces(pieces)).map((cue) => cue.text),
    cuesFromWords(talk).map((cue) => cue.text),
  );
});

test('three pieces, one of them silent at its seam, and pieces given out of order', () => {
  const pieces = [hear(6, 11, 0), hear(0, 4.5, 0.1), hear(1.5, 9, -0.1)];
  assert.equal(textOf(joinTranscriptPieces(pieces)), textOf(talk));
  assert.deepEqual(joinTranscriptPieces([]), []);
  assert.equal(textOf(joinTranscriptPieces([hear(0, 11, 0)])), textOf(talk));
});
