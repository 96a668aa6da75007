// The checks of what an HLS encode wrote, before anything of it is reported: each rendition's
// playlist covers what was asked (a source read that ended early looks like a clean end to ffmpeg),
// and every file to upload has its URL.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ProbeResult__Output } from '@kino/proto';
import { hlsMinimumLastSegmentSeconds, hlsPlaylistName } from '@kino/proto/contract';
import { parseMediaPlaylist, reportsTruncatedInput, type MediaPlaylist } from '@kino/ffmpeg';
import { InvalidSourceError, StorageUnavailableError } from './errors.ts';
import type { HlsRendition } from './hls-plan.ts';
import type { HlsUploads } from './hls-uploads.ts';
import { listFiles } from './segment-scan.ts';

/** A rendition as ffmpeg wrote it: its playlist, and the files to upload (`720p/seg-00000.m4s`). */
export interface EncodedRendition {
  rendition: HlsRendition;
  playlist: MediaPlaylist;
  files: string[];
}

/** What an encode was asked to cover, to check its playlists against. */
export interface Coverage {
  /** The video seconds the encode covers (encodeEndSeconds of the source's video duration). */
  expectedSeconds: number;
  /** Where the encode starts in the video: 0, or a chunk's start. */
  startSeconds: number;
  source: ProbeResult__Output;
  /** ffmpeg's error output (HlsEncoded.errorOutput). */
  errorOutput: string;
}

/**
 * Throws when the playlist covers less than asked: InvalidSourceError when ffmpeg saw the source
 * itself end early (its index promised more: final, the video cannot be made), else
 * StorageUnavailableError (the read of the source ended early: worth another try).
 */
export function checkCoverage(
  key: string,
  playlist: MediaPlaylist,
  { expectedSeconds, startSeconds, source, errorOutput }: Coverage,
): void {
  const encodedSeconds = playlist.segments.reduce((sum, s) => sum + s.durationSeconds, 0);
  if (encodedSeconds >= expectedSeconds * 0.97 - 0.5) return;
  if (reportsTruncatedInput(errorOutput)) {
    throw new InvalidSourceError(
      `the source ends at about ${(startSeconds + encodedSeconds).toFixed(1)} s, before the ${source.durationSeconds.toFixed(1)} s its index announces: the file is truncated or damaged`,
    );
  }
  throw new StorageUnavailableError(
    `the encode of ${key} covered ${encodedSeconds.toFixed(2)} s of the ${expectedSeconds.toFixed(2)} s asked for: the source read ended early`,
  );
}

/**
 * Each rendition as written in `uploads.outDir`, checked (checkCoverage, and a URL for every file
 * `uploads` keeps: `keep` is given each file's name in the rendition's directory). `asUploaded`: the
 * segments ffmpeg's playlist lists as the node uploads them (a window's pieces joined).
 */
export async function checkRenditions(
  renditions: HlsRendition[],
  uploads: HlsUploads,
  coverage: Coverage,
  keep: (name: string) => boolean,
  logger: Logger,
  asUploaded: (playlist: MediaPlaylist) => MediaPlaylist = (playlist) => playlist,
): Promise<EncodedRendition[]> {
  const encoded: EncodedRendition[] = [];
  for (const rendition of renditions) {
    const playlist = asUploaded(
      parseMediaPlaylist(await readFile(join(uploads.outDir, rendition.prefix + hlsPlaylistName), 'utf8')),
    );
    checkCoverage(rendition.spec.key, playlist, coverage);
    // The keyframes stop short of a sliver (keyframesEndSeconds): one here means the probed
    // duration was off, and the sliver may stall a player at the end.
    const last = playlist.segments.at(-1);
    if (playlist.segments.length > 1 && last && last.durationSeconds < hlsMinimumLastSegmentSeconds) {
      logger.warn(
        {
          rendition: rendition.spec.key,
          lastSegmentSeconds: last.durationSeconds,
          videoSeconds: coverage.source.videoDurationSeconds,
        },
        'the last segment is shorter than the minimum',
      );
    }
    const files = (await listFiles(join(uploads.outDir, rendition.prefix)))
      .filter(keep)
      .map((name) => rendition.prefix + name);
    uploads.checkUrls(files);
    encoded.push({ rendition, playlist, files });
  }
  return encoded;
}
