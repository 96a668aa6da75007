// Resolution categories of analytics (the spec's "HD is 1080p and above, SD is 720p, LD is 480p and
// below"): a rendition's height decides its band. Heights between LD and HD (540p, 576p, 720p)
// count as SD, so that every height has exactly one band. The API's daily records sum segments by
// these bands; the dashboard labels and colours them with the same numbers.
export const resolutionBands = {
  /** The lowest height counted as HD. */
  hdMinHeight: 1080,
  /** The highest height counted as LD. */
  ldMaxHeight: 480,
} as const;

export type ResolutionBand = 'hd' | 'sd' | 'ld';

/** The band of a rendition `height` pixels tall. */
export function resolutionBandOf(height: number): ResolutionBand {
  if (height >= resolutionBands.hdMinHeight) return 'hd';
  if (height <= resolutionBands.ldMaxHeight) return 'ld';
  return 'sd';
}
