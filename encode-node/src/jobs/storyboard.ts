// Storyboard (@kino/proto/contract storyboard.ts): sprite sheets of frames at a fixed interval, read
// by ffmpeg from the source's presigned GET, and the WebVTT mapping each interval to its tile,
// uploaded through their presigned PUTs. It takes no slot.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { StoryboardRequest__Output, StoryboardResult } from '@kino/proto';
import {
  planStoryboard,
  storyboardContentTypes,
  storyboardLayout,
  storyboardSheetName,
  storyboardSheetPattern,
  storyboardVttName,
  type StoryboardPlan,
} from '@kino/proto/contract';
import { ProcessPriority, backgroundNiceness, runFfmpeg, storyboardArgs } from '@kino/ffmpeg';
import { FfmpegFailedError, InvalidRequestError } from '../errors.ts';
import { toneMapOf } from '../encode-settings.ts';
import { withJobDir } from '../job-dir.ts';
import { jpegSize } from '../jpeg-size.ts';
import { uploadFile } from '../upload.ts';

export interface StoryboardJobOptions {
  request: StoryboardRequest__Output;
  workDir: string;
  signal: AbortSignal;
  logger: Logger;
}

export async function runStoryboardJob({
  request,
  workDir,
  signal,
  logger,
}: StoryboardJobOptions): Promise<StoryboardResult> {
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
  if (!request.vttUrl) throw new InvalidRequestError('vtt_url is required');
  if (!(request.durationSeconds > 0)) throw new InvalidRequestError('duration_seconds must be more than 0');
  const plan = planStoryboard(request.durationSeconds);
  if (request.sheetUrls.length !== plan.sheets) {
    throw new InvalidRequestError(
      `a ${request.durationSeconds} s video has ${plan.sheets} storyboard sheets, not ${request.sheetUrls.length}`,
    );
  }
  return withJobDir(workDir, request.jobId, 'storyboard', async (jobDir) => {
    // A storyboard decodes the whole source beside the encodes, and nobody waits for it as for an
    // encode: it runs at the background nice value, so that it never slows an encode a viewer (or a
    // just-in-time video's `ready`) waits for (docs/decisions/just-in-time.md).
    await runFfmpeg(
      storyboardArgs({
        input: request.inputUrl,
        tileWidth: storyboardLayout.tileWidth,
        ...plan,
        outputPattern: join(jobDir, storyboardSheetPattern),
        ...toneMapOf(request.dynamicRange),
      }),
      { signal, logger, priority: new ProcessPriority(backgroundNiceness) },
    );
    const sheets = await Promise.all(
      Array.from({ length: plan.sheets }, (_, i) =>
        readFile(join(jobDir, storyboardSheetName(i))).catch(() => undefined),
      ),
    );
    const first = sheets[0] && jpegSize(sheets[0]);
    if (!first || sheets.some((sheet) => !sheet || sheet.length === 0)) {
      throw new FfmpegFailedError(`ffmpeg wrote ${sheets.filter(Boolean).length} of ${plan.sheets} storyboard sheets`);
    }
    // Every sheet has the same grid (the last is padded), so the first one gives the tile size.
    const tile = { width: Math.floor(first.width / plan.columns), height: Math.floor(first.height / plan.rows) };
    const vttPath = join(jobDir, storyboardVttName);
    await writeFile(vttPath, storyboardVtt(plan, tile, request.durationSeconds));
    await Promise.all([
      ...request.sheetUrls.map((url, i) =>
        uploadFile(join(jobDir, storyboardSheetName(i)), url, storyboardContentTypes.sheet, signal),
      ),
      uploadFile(vttPath, request.vttUrl, storyboardContentTypes.vtt, signal),
    ]);
    return { sheets: plan.sheets, tiles: plan.tiles, tileWidth: tile.width, tileHeight: tile.height };
  });
}

/**
 * The WebVTT: one cue per tile, back to back from 0 to the video's end (the last one shorter),
 * each naming its sheet (relative to the VTT) and region.
 */
export function storyboardVtt(
  plan: StoryboardPlan,
  tile: { width: number; height: number },
  durationSeconds: number,
): string {
  const perSheet = plan.columns * plan.rows;
  const lines = ['WEBVTT', ''];
  for (let i = 0; i < plan.tiles; i++) {
    const start = i * plan.intervalSeconds;
    const end = i === plan.tiles - 1 ? durationSeconds : (i + 1) * plan.intervalSeconds;
    const inSheet = i % perSheet;
    const x = (inSheet % plan.columns) * tile.width;
    const y = Math.floor(inSheet / plan.columns) * tile.height;
    lines.push(
      `${vttTime(start)} --> ${vttTime(end)}`,
      `${storyboardSheetName(Math.floor(i / perSheet))}#xywh=${x},${y},${tile.width},${tile.height}`,
      '',
    );
  }
  return lines.join('\n');
}

/** `hh:mm:ss.mmm` */
function vttTime(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}
