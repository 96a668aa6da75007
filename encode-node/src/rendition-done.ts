// What an HLS encode reports of each rendition it made (RenditionDone of kino.proto): measured from
// the files it wrote, as the orchestrator records them and writes the master playlist from.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RenditionDone, SegmentDone } from '@kino/proto';
import { hlsInitName, measureBandwidth, pixelFormatOfX264 } from '@kino/proto/contract';
import { parseInitSegment, type FfmpegProgress } from '@kino/ffmpeg';
import type { EncodedRendition } from './hls-checks.ts';
import { notMeasured, type QualityResult } from './quality-score.ts';

export type MeasuredRendition = Required<RenditionDone> & {
  segments: Required<SegmentDone>[];
  frameCount: number;
  bytesWritten: number;
  peakBandwidth: number;
  averageBandwidth: number;
  durationSeconds: number;
};

/**
 * Each encoded rendition measured from its files in `outDir`: segments and their sizes, bandwidth,
 * CODECS and size from the init segment, frames, and its quality score when it has one. `last` is
 * ffmpeg's last progress (its frames are those of the first rendition).
 */
export async function measureRenditions(
  outDir: string,
  encoded: EncodedRendition[],
  scores: Map<string, QualityResult>,
  last: FfmpegProgress | undefined,
): Promise<MeasuredRendition[]> {
  const results: MeasuredRendition[] = [];
  const firstFrameRate = encoded[0]!.rendition.settings.frameRate;
  for (const { rendition, playlist, files } of encoded) {
    const { settings, spec, prefix } = rendition;
    const sizes = new Map<string, number>();
    for (const name of files) sizes.set(name, (await stat(join(outDir, name))).size);
    const segments = playlist.segments.map((s) => ({
      name: s.uri,
      durationSeconds: s.durationSeconds,
      sizeBytes: sizes.get(prefix + s.uri) ?? 0,
    }));
    const bandwidth = measureBandwidth(segments);
    const init = parseInitSegment(await readFile(join(outDir, prefix + hlsInitName)));
    // ffmpeg's progress counts the frames of its first video output; a rendition at another
    // frame rate (none today: one ladder, one frame rate) is counted from its duration.
    const frames =
      settings.frameRate === firstFrameRate
        ? (last?.frame ?? 0)
        : Math.round(bandwidth.durationSeconds * settings.frameRate);
    results.push({
      key: spec.key,
      segmentCount: playlist.segments.length,
      peakBandwidth: bandwidth.peakBitsPerSecond,
      averageBandwidth: bandwidth.averageBitsPerSecond,
      codecs: init.codecs,
      frameCount: frames,
      width: init.width,
      height: init.height,
      pixelFormat: settings.audioOnly ? '' : pixelFormatOfX264[settings.pixelFormat],
      audioFormat: settings.audio && init.audioCodec ? settings.audio.encoding.format : '',
      durationSeconds: bandwidth.durationSeconds,
      bytesWritten: [...sizes.values()].reduce((sum, size) => sum + size, 0),
      segments,
      ...(scores.get(spec.key) ?? notMeasured),
    });
  }
  return results;
}
