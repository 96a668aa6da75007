// The scan for finished segments while ffmpeg encodes, so that each goes up at once. ffmpeg writes
// each segment under a temporary name and renames it when complete (hls_flags temp_file): every
// segment present is complete. Waiting for the next one to appear, as before, held each run's last
// segments until the run ended (a viewer waited).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

// A 6 s segment, or a 2 s piece of a window starting in the first segment (ChunkEncode.bootstrap:
// the first segment's bootstrap segments, and the later pieces bootstrap-pieces.ts joins).
const segmentName = /^(seg-\d+|boot-\d+)\.m4s$/;
const scanIntervalMs = 500;

/** The names of a directory's files, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/**
 * Every `intervalMs`, reports the finished segments of each of `prefixes` (the renditions'
 * directories under `outDir`, `720p/`) by their name relative to `outDir`, every one present each
 * time; a failed scan (or a throwing or rejecting `onSegments`) goes to `onError`. Returns the function that stops it.
 */
export function scanFinishedSegments(
  outDir: string,
  prefixes: string[],
  onSegments: (names: string[]) => void | Promise<void>,
  onError: (error: unknown) => void,
  intervalMs = scanIntervalMs,
): () => void {
  const scan = async () => {
    for (const prefix of prefixes) {
      const segments = (await listFiles(join(outDir, prefix))).filter((name) => segmentName.test(name));
      await onSegments(segments.map((name) => prefix + name));
    }
  };
  const scanner = setInterval(() => {
    scan().catch(onError);
  }, intervalMs);
  return () => clearInterval(scanner);
}
