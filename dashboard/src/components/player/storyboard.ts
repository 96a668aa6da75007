// Storyboards for the thumbnail picker: the video's WebVTT (details' `storyboardUrl`) maps each
// interval to a tile of a sprite sheet (`storyboard-0.jpg#xywh=x,y,w,h`, docs/decisions/encoding.md#storyboards),
// so scrubbing shows a frame of any instant without seeking the player. Sheet URIs are relative to
// the VTT (and carry a private video's token), so they are resolved against its URL.

export interface StoryboardTile {
  /** Seconds. */
  start: number;
  end: number;
  /** The sprite sheet's absolute URL. */
  sheetUrl: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** `hh:mm:ss.mmm` or `mm:ss.mmm` → seconds. */
function vttSeconds(timestamp: string): number {
  return timestamp.split(':').reduce((total, part) => total * 60 + Number(part), 0);
}

const cueTiming = /^((?:\d+:)?\d{2}:\d{2}\.\d{3})\s+-->\s+((?:\d+:)?\d{2}:\d{2}\.\d{3})/;
const tileFragment = /#xywh=(\d+),(\d+),(\d+),(\d+)$/;

/** The tiles of a storyboard VTT, in time order; cues that name no tile are skipped. */
export function parseStoryboardVtt(text: string, vttUrl: string): StoryboardTile[] {
  const tiles: StoryboardTile[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const timing = cueTiming.exec(lines[i]!.trim());
    if (!timing) continue;
    const payload = lines[i + 1]?.trim() ?? '';
    const fragment = tileFragment.exec(payload);
    if (!fragment) continue;
    const [, x, y, width, height] = fragment.map(Number) as [number, number, number, number, number];
    tiles.push({
      start: vttSeconds(timing[1]!),
      end: vttSeconds(timing[2]!),
      sheetUrl: new URL(payload.slice(0, fragment.index), vttUrl).toString(),
      x,
      y,
      width,
      height,
    });
  }
  return tiles.sort((a, b) => a.start - b.start);
}

/** The tile showing `seconds`: the last one starting at or before it (the first before any). */
export function tileAt(tiles: readonly StoryboardTile[], seconds: number): StoryboardTile | undefined {
  let found = tiles[0];
  for (const tile of tiles) {
    if (tile.start <= seconds) found = tile;
    else break;
  }
  return found;
}
