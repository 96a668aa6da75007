// The storyboard the delivery host serves beside the master playlist (`storyboard.vtt`): WebVTT
// cues whose text is a tile of a sprite sheet, `storyboard-0.jpg#xywh=x,y,w,h` (a token, when the VTT
// was opened with one, sits in the sheet's query). The seek bar shows the tile under the pointer.

export interface StoryboardTile {
  start: number;
  end: number;
  /** The sheet, absolute (resolved against the VTT's URL). */
  sheet: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

function seconds(timestamp: string): number {
  const parts = timestamp.split(':').map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

const cuePattern =
  /^((?:\d+:)?\d{2}:\d{2}\.\d{3})\s+-->\s+((?:\d+:)?\d{2}:\d{2}\.\d{3})[^\n]*\n([^\n#]+)#xywh=(\d+),(\d+),(\d+),(\d+)/gm;

/** The tiles of a storyboard VTT, in time order; `baseUrl` is the VTT's own URL. */
export function parseStoryboard(vtt: string, baseUrl: string): StoryboardTile[] {
  const tiles: StoryboardTile[] = [];
  for (const match of vtt.replace(/\r\n?/g, '\n').matchAll(cuePattern)) {
    const [, start, end, sheet, x, y, width, height] = match as unknown as string[];
    tiles.push({
      start: seconds(start!),
      end: seconds(end!),
      sheet: new URL(sheet!.trim(), baseUrl).href,
      x: Number(x),
      y: Number(y),
      width: Number(width),
      height: Number(height),
    });
  }
  return tiles;
}

/** The tile showing at `time` (past the end, the last one); undefined with no tiles. */
export function tileAt(tiles: readonly StoryboardTile[], time: number): StoryboardTile | undefined {
  return tiles.find((tile) => time >= tile.start && time < tile.end) ?? tiles.findLast((tile) => time >= tile.start);
}
