// Storyboards: frames of a video at a fixed interval, tiled into sprite sheets (JPEG), and a WebVTT
// file whose cues map each interval to its tile (`storyboard-0.jpg#xywh=x,y,w,h`), as players show
// on timeline hover. A node makes the sheets and the VTT; delivery serves both beside the master
// playlist (`storyboard.vtt`, `storyboard-<n>.jpg`) in every path family.
//
// One frame every 5 s, 160 px wide (height by the video's aspect), up to 10 x 10 tiles a sheet:
// a sheet covers 500 s and stays near 1600 x 900 px (a few hundred KB), so a player fetches one
// sheet for several minutes of hover, and an hour of video is 8 sheets.

export const storyboardLayout = {
  intervalSeconds: 5,
  tileWidth: 160,
  maxColumns: 10,
  maxRows: 10,
} as const;

export const storyboardVttName = 'storyboard.vtt';

/** Sheet `index` (from 0): `storyboard-0.jpg`, ... */
export function storyboardSheetName(index: number): string {
  return `storyboard-${index}.jpg`;
}

/** ffmpeg's image2 pattern that writes storyboardSheetName's names (with `-start_number 0`). */
export const storyboardSheetPattern = 'storyboard-%d.jpg';

export const storyboardContentTypes = {
  vtt: 'text/vtt; charset=utf-8',
  sheet: 'image/jpeg',
} as const;

export interface StoryboardPlan {
  intervalSeconds: number;
  /** Tiles in all (one per interval, the last one possibly shorter). */
  tiles: number;
  columns: number;
  rows: number;
  sheets: number;
}

/** How a video of `durationSeconds` is tiled. */
export function planStoryboard(durationSeconds: number): StoryboardPlan {
  const { intervalSeconds, maxColumns, maxRows } = storyboardLayout;
  const tiles = Math.max(1, Math.ceil(durationSeconds / intervalSeconds));
  const columns = Math.min(maxColumns, tiles);
  const rows = Math.min(maxRows, Math.ceil(tiles / columns));
  return { intervalSeconds, tiles, columns, rows, sheets: Math.ceil(tiles / (columns * rows)) };
}
