// Long videos transcribed in pieces across nodes (docs/decisions/captions.md): where a video's sound
// is cut, and how the pieces' words are joined back into one sequence before cues are cut from it
// (cuesFromWords, once, over the whole video). Pure and deterministic: the generateCaptions workflow
// plans with it, the join activity joins with it.
import type { SpokenWord } from './transcripts.ts';

/**
 * The default piece length: 10 minutes of sound, about 40 CPU seconds of the tiny model, so a
 * two-hour talk runs on twelve slots at once and a node lost mid-piece costs one piece.
 */
export const defaultTranscriptPieceSeconds = 600;

/**
 * Sound each piece reads past its seam on either side. The engine mishears a word cut at a piece's
 * edge; a seam's cut is chosen in the middle of the overlap, at least `seamEdgeSeconds` from both
 * pieces' edges, so neither piece's edge words are ever kept.
 */
export const transcriptPieceOverlapSeconds = 3;
const seamEdgeSeconds = 1;
const maxClearanceSeconds = 1;

/** One piece: the span of the source a node transcribes, overlap included. */
export interface TranscriptPiece {
  index: number;
  startSeconds: number;
  /** Where the node stops reading; the last piece's is the video's end. */
  endSeconds: number;
}

/**
 * Cuts a video of `durationSeconds` into pieces of about `pieceSeconds` (0: never) whose spans
 * overlap by `transcriptPieceOverlapSeconds` on each side of each seam. A video under one and a half
 * pieces long is one piece (a short tail joins the piece before it).
 */
export function planTranscriptPieces(durationSeconds: number, pieceSeconds: number): TranscriptPiece[] {
  const end = Math.max(0, durationSeconds);
  const count = pieceSeconds > 0 ? Math.max(1, Math.round(end / pieceSeconds)) : 1;
  const length = end / count;
  return Array.from({ length: count }, (_, index) => ({
    index,
    startSeconds: round3(Math.max(0, index * length - (index > 0 ? transcriptPieceOverlapSeconds : 0))),
    endSeconds: round3(index === count - 1 ? end : Math.min(end, (index + 1) * length + transcriptPieceOverlapSeconds)),
  }));
}

/** What a node writes for one piece (objectKeys.transcriptPiece): the words it heard, on the video's timeline. */
export interface TranscribedWords {
  /** The language transcribed: the one asked, or the one the engine detected. */
  language: string;
  words: SpokenWord[];
}

/** A piece's words, on the video's timeline, as its node heard them. */
export interface HeardPiece {
  startSeconds: number;
  endSeconds: number;
  words: readonly SpokenWord[];
}

/**
 * The pieces' words as one sequence, each word once. At each seam the words overlap: the cut goes
 * where both pieces hear silence (the point of the overlap's middle, at least seamEdgeSeconds from
 * either piece's edge, farthest from any word either piece heard); words before it come from the
 * piece before, words after it from the piece after. A word is on the side of its middle.
 */
export function joinTranscriptPieces(pieces: readonly HeardPiece[]): SpokenWord[] {
  const ordered = [...pieces].sort((a, b) => a.startSeconds + a.endSeconds - (b.startSeconds + b.endSeconds));
  const joined: SpokenWord[] = [];
  let from = -Infinity;
  ordered.forEach((piece, index) => {
    const next = ordered[index + 1];
    const to = next ? seamCut(piece, next) : Infinity;
    for (const word of piece.words) {
      const middle = (word.startSeconds + word.endSeconds) / 2;
      if (middle >= from && middle < to) joined.push(word);
    }
    from = to;
  });
  return joined;
}

/** The time of the cut between two overlapping pieces (see joinTranscriptPieces). */
export function seamCut(before: HeardPiece, after: HeardPiece): number {
  const low = Math.min(after.startSeconds + seamEdgeSeconds, before.endSeconds);
  const high = Math.max(before.endSeconds - seamEdgeSeconds, low);
  const middle = (before.endSeconds + after.startSeconds) / 2;
  const nearby = [...before.words, ...after.words].filter(
    (word) => word.endSeconds >= low - 10 && word.startSeconds <= high + 10,
  );
  // Candidates: the window's ends, its middle, and every edge of a word inside it (a gap between
  // words is best cut at its middle, found as the midpoint of two neighbouring edges below).
  const edges = [low, high, middle];
  for (const word of nearby) edges.push(word.startSeconds, word.endSeconds);
  const inWindow = edges.filter((t) => t >= low && t <= high).sort((a, b) => a - b);
  const candidates = [...inWindow];
  for (let i = 1; i < inWindow.length; i++) candidates.push((inWindow[i - 1]! + inWindow[i]!) / 2);
  let best = middle;
  let bestClearance = -1;
  for (const t of candidates) {
    // Capped, so that in a long silence the cut nearest the middle wins.
    const clearance = Math.min(maxClearanceSeconds, ...nearby.map((word) => distanceToWord(t, word)));
    const better =
      clearance > bestClearance + 1e-9 ||
      (Math.abs(clearance - bestClearance) <= 1e-9 && Math.abs(t - middle) < Math.abs(best - middle));
    if (better) {
      best = t;
      bestClearance = clearance;
    }
  }
  return best;
}

/** 0 inside the word, else how far `t` is from it. */
function distanceToWord(t: number, word: SpokenWord): number {
  if (t < word.startSeconds) return word.startSeconds - t;
  if (t > word.endSeconds) return t - word.endSeconds;
  return 0;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
