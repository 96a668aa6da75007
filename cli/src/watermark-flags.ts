// The `--watermark-*` flags of `videos upload` and `environments update` (issue 57): an image id
// (`kino images upload`) and where and how large it is drawn, as the API's `watermark` takes them.
import { Flags } from '@oclif/core';
import { watermarkBounds, watermarkPositions, type WatermarkRequest } from '@kino/proto/contract';

const { marginPercent, widthPercent, opacity } = watermarkBounds;

export const watermarkFlags = {
  watermark: Flags.string({
    description: 'an image id (kino images upload) burnt into every rendition',
  }),
  'watermark-position': Flags.option({
    options: watermarkPositions,
    description: 'where the watermark goes',
    default: 'top-right',
  })(),
  'watermark-width': Flags.string({
    description: `its width, a percentage of the picture's (${widthPercent.minimum}-${widthPercent.maximum}; the API's default ${widthPercent.default})`,
  }),
  'watermark-margin': Flags.string({
    description: `its gap to the edges, a percentage of the picture (${marginPercent.minimum}-${marginPercent.maximum}; the API's default ${marginPercent.default})`,
  }),
  'watermark-opacity': Flags.string({
    description: `${opacity.minimum} (invisible) to ${opacity.maximum} (opaque, the API's default)`,
  }),
};

type WatermarkFlagValues = {
  watermark?: string | undefined;
  'watermark-position': (typeof watermarkPositions)[number];
  'watermark-width'?: string | undefined;
  'watermark-margin'?: string | undefined;
  'watermark-opacity'?: string | undefined;
};

/**
 * The watermark the flags ask for (undefined without `--watermark`). A value that is not a number
 * throws `invalid`'s error; the API checks the ranges and names the field it refuses.
 */
export function watermarkOfFlags(
  flags: WatermarkFlagValues,
  invalid: (message: string) => Error,
): WatermarkRequest | undefined {
  if (!flags.watermark) return undefined;
  const numberOf = (flag: 'watermark-width' | 'watermark-margin' | 'watermark-opacity') => {
    const text = flags[flag];
    if (text === undefined) return undefined;
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) throw invalid(`--${flag} takes a number, not ${text}`);
    return value;
  };
  const width = numberOf('watermark-width');
  const margin = numberOf('watermark-margin');
  const fade = numberOf('watermark-opacity');
  return {
    imageId: flags.watermark,
    position: flags['watermark-position'],
    ...(width !== undefined ? { widthPercent: width } : {}),
    ...(margin !== undefined ? { marginPercent: margin } : {}),
    ...(fade !== undefined ? { opacity: fade } : {}),
  };
}
