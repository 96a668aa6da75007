// How good a rendition looks next to its source: VMAF (libvmaf's built-in model, vmaf_v0.6.1, the
// one Netflix's per-title work and most published ladders quote) and PSNR of the luma, in one pass.
// Debian's ffmpeg has no libvmaf: these arguments are for the quality ffmpeg, the static build in
// PyPI's imageio-ffmpeg wheel (ffmpeg 9 with libvmaf and SVT-AV1 4), which dev/setup/setup.sh
// installs into the project's tools.
//
// Both pictures are scaled to the same size (the reference's display size, as a viewer's player
// would upscale a low rendition to the screen), bicubic, square pixels, 8-bit 4:2:0, their
// timestamps from zero; `subsample` scores every n-th frame (the score of a 10 s chunk moves by a
// few hundredths when n is 1 against 3, and the run is about n times cheaper).
import type { HdrDynamicRange } from '@kino/proto/contract';
import { inputArgsFor } from './command.ts';
import { toneMapFilter } from './presets.ts';

export interface QualityOptions {
  /**
   * The encoded renditions (any input ffmpeg reads: an MP4, init and segments concatenated), each
   * with where libvmaf writes its JSON log (parseQualityLog reads it): all scored in one pass, against
   * one decode of the reference.
   */
  renditions: { input: string; logPath: string }[];
  /** The source they were made from. */
  reference: string;
  /** The size all are compared at. */
  width: number;
  height: number;
  /** libvmaf threads. */
  threads: number;
  /** Score every n-th frame (1: every frame); the others are dropped before scaling, which costs most. */
  subsample: number;
  /** The part of the reference the renditions were made of (a chunk's window); absent: all of it. */
  window?: { startSeconds: number; durationSeconds: number };
  /** The renditions' frame rate when it was lowered from the reference's: the reference is taken to it. */
  frameRate?: number;
  /** The renditions were tone-mapped from this HDR: so is the reference, with the same tone map. */
  toneMapFrom?: HdrDynamicRange;
}

export function qualityArgs({
  renditions,
  reference,
  width,
  height,
  threads,
  subsample,
  window,
  frameRate,
  toneMapFrom,
}: QualityOptions): string[] {
  if (renditions.length === 0) throw new Error('nothing to score');
  // The same frames on both sides (frame numbers count from each input's first), then one size.
  const prepare = `select='not(mod(n\\,${subsample}))',scale=${width}:${height}:flags=bicubic,setsar=1,format=yuv420p,setpts=PTS-STARTPTS`;
  // Frame for frame: renditions at a lower rate are compared with the reference at that rate.
  const toSdr = toneMapFrom ? `${toneMapFilter(toneMapFrom, 'yuv420p')},` : '';
  const prepareReference = `${frameRate ? `fps=${frameRate},` : ''}${toSdr}${prepare}`;
  // The same input seek as the chunk's encode (presets.ts inputsFor): the same first frame.
  const seek = window && window.startSeconds > 0 ? ['-ss', String(window.startSeconds)] : [];
  const duration = window ? ['-t', String(window.durationSeconds)] : [];
  const r = renditions.length;
  const graph = [
    `[${r}:v:0]${prepareReference}${r > 1 ? `,split=${r}` : ''}${renditions.map((_, k) => `[reference${k}]`).join('')}`,
    ...renditions.map(({ logPath }, k) => {
      const vmaf = `libvmaf=feature=name=psnr:log_fmt=json:log_path=${escapeFilterValue(logPath)}:n_threads=${threads}`;
      // libvmaf takes the distorted picture first, the reference second.
      return `[${k}:v:0]${prepare}[distorted${k}];[distorted${k}][reference${k}]${vmaf}[scored${k}]`;
    }),
  ].join(';');
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    ...renditions.flatMap(({ input }) => ['-i', input]),
    ...inputArgsFor(reference),
    ...seek,
    ...duration,
    '-i',
    reference,
    '-lavfi',
    graph,
    ...renditions.flatMap((_, k) => ['-map', `[scored${k}]`, '-f', 'null', '-']),
  ];
}

export interface QualityScore {
  /** Mean VMAF over the frames scored (0..100). */
  vmaf: number;
  /** Mean PSNR of the luma (dB). */
  psnr: number;
  frames: number;
}

/** The pooled means of libvmaf's JSON log. */
export function parseQualityLog(json: string): QualityScore {
  const log = JSON.parse(json) as { frames?: unknown[]; pooled_metrics?: Record<string, { mean?: number }> };
  const vmaf = log.pooled_metrics?.vmaf?.mean;
  const psnr = log.pooled_metrics?.psnr_y?.mean;
  if (typeof vmaf !== 'number' || typeof psnr !== 'number')
    throw new Error('the libvmaf log has no pooled vmaf and psnr_y');
  return { vmaf, psnr, frames: log.frames?.length ?? 0 };
}

/** A path inside a filter option: `:` and `\` and `'` escaped as the filter graph parser wants them. */
function escapeFilterValue(value: string): string {
  return value.replace(/[\\':]/g, (c) => `\\${c}`);
}
