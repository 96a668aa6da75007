// A just-in-time video's second run (issue 55; docs/decisions/just-in-time.md#bootstrap-segments)
// starts 2 s into the first segment and runs on past it, through the next run's segments. ffmpeg's
// HLS muxer cuts one length per output (its hls_init_time does not give 2 s, then 6 s), so such a
// window is muxed into 2 s pieces on the keyframe grid, `boot-<n>.m4s` numbered from the window's
// start / 2: the pieces inside the first segment (n < 3) are its bootstrap segments and go up as they
// are; the later ones are joined by threes into the 6 s segments, each as soon as its third piece is
// closed, the last one (one to three pieces) once the encode ends. Keyframes are forced on the 2 s
// grid and stop short of a sliver at the end, so segment k is pieces 3k to 3k+2, cut on the frames
// a 6 s muxer cuts on; fMP4 fragments concatenate, as the first segment's bootstrap segments do.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MediaPlaylist } from '@kino/ffmpeg';
import { hlsBootstrapCount, hlsSegmentName } from '@kino/proto/contract';
import { listFiles } from './segment-scan.ts';

const pieceName = /^boot-(\d+)\.m4s$/;

/** The 6 s segment a piece past the first segment is joined into; undefined for any other name. */
export function segmentOfLaterPiece(name: string): number | undefined {
  const match = pieceName.exec(name.slice(name.lastIndexOf('/') + 1));
  if (!match) return undefined;
  const piece = Number(match[1]);
  return piece < hlsBootstrapCount ? undefined : Math.floor(piece / hlsBootstrapCount);
}

/** The pieces' joins of one encode, in `outDir`'s rendition directories (`720p/`). */
export class PieceJoins {
  /** The segments joined or being joined, `720p/seg-00001.m4s`. */
  private readonly joined = new Set<string>();

  private readonly outDir: string;
  constructor(outDir: string) {
    this.outDir = outDir;
  }

  /**
   * Of the closed files of one rendition (`720p/boot-1.m4s`, ...), what may go up now: the bootstrap
   * segments and the segments joined already, and each segment whose three pieces are closed,
   * joined first.
   */
  async uploadable(names: string[]): Promise<string[]> {
    const later = names.filter((name) => segmentOfLaterPiece(name) !== undefined);
    const ready = names.filter((name) => segmentOfLaterPiece(name) === undefined);
    for (const name of later) {
      if (pieceNumber(name) % hlsBootstrapCount !== hlsBootstrapCount - 1) continue;
      const joined = await this.join(name.slice(0, name.lastIndexOf('/') + 1), later, segmentOfLaterPiece(name)!);
      if (joined) ready.push(joined);
    }
    return ready;
  }

  /** Once the encode ended: every segment not joined yet in the rendition directories `prefixes`. */
  async joinRest(prefixes: string[]): Promise<void> {
    for (const prefix of prefixes) {
      const later = (await listFiles(join(this.outDir, prefix)))
        .filter((name) => segmentOfLaterPiece(name) !== undefined)
        .map((name) => prefix + name);
      for (const name of later) await this.join(prefix, later, segmentOfLaterPiece(name)!);
    }
  }

  /**
   * Joins segment `index` from its pieces among `later` (the rendition's pieces past the first
   * segment), unless it is joined already; returns its name, or undefined. Written under a
   * temporary name and renamed, as ffmpeg writes segments: a segment present is complete.
   */
  private async join(prefix: string, later: string[], index: number): Promise<string | undefined> {
    const name = prefix + hlsSegmentName(index);
    if (this.joined.has(name)) return undefined;
    this.joined.add(name);
    const pieces = later
      .filter((piece) => segmentOfLaterPiece(piece) === index)
      .sort((a, b) => pieceNumber(a) - pieceNumber(b));
    const bytes = await Promise.all(pieces.map((piece) => readFile(join(this.outDir, piece))));
    await writeFile(join(this.outDir, `${name}.tmp`), Buffer.concat(bytes));
    await rename(join(this.outDir, `${name}.tmp`), join(this.outDir, name));
    return name;
  }
}

function pieceNumber(name: string): number {
  return Number(pieceName.exec(name.slice(name.lastIndexOf('/') + 1))![1]);
}

/** ffmpeg's playlist of pieces as the segments the node uploads: the later pieces as their joined segments. */
export function withPiecesJoined(playlist: MediaPlaylist): MediaPlaylist {
  const segments: MediaPlaylist['segments'] = [];
  for (const segment of playlist.segments) {
    const index = segmentOfLaterPiece(segment.uri);
    const last = segments.at(-1);
    if (index === undefined) segments.push(segment);
    else if (last?.uri === hlsSegmentName(index))
      last.durationSeconds = Math.round((last.durationSeconds + segment.durationSeconds) * 1e6) / 1e6;
    else segments.push({ uri: hlsSegmentName(index), durationSeconds: segment.durationSeconds });
  }
  return { ...playlist, segments };
}
