// Watermarks (issue 57, docs/decisions/encoding.md#watermarks): an image of the environment's
// (POST .../images) burnt into every picture rendition of a video, placed and sized as a share of
// the picture so that it looks the same at every rung. The API checks the values against these
// bounds and applies the defaults; the orchestrator sends them as they are; @kino/ffmpeg turns them
// into pixels for each rendition.

export const watermarkPositions = ['top-left', 'top-right', 'bottom-left', 'bottom-right', 'center'] as const;
export type WatermarkPosition = (typeof watermarkPositions)[number];

/** The bounds and default of each number of a watermark (DESIGN: margin 0–20 % default 3, width 1–50 % default 12, opacity 0–1 default 1). */
export const watermarkBounds = {
  /** The gap between the image and the picture's edges: a share of the picture's width (left, right) and height (top, bottom). */
  marginPercent: { minimum: 0, maximum: 20, default: 3 },
  /** The image's width as a share of the picture's width; its height follows its own aspect. */
  widthPercent: { minimum: 1, maximum: 50, default: 12 },
  /** 1: opaque (the image's own alpha still applies); 0: invisible. */
  opacity: { minimum: 0, maximum: 1, default: 1 },
} as const;

/** A video's watermark, its defaults applied (kept in its encoding parameters and shown in its details). */
export interface Watermark {
  imageId: string;
  position: WatermarkPosition;
  marginPercent: number;
  widthPercent: number;
  opacity: number;
}

/** A watermark as a request gives it: the numbers may be left out. */
export type WatermarkRequest = Pick<Watermark, 'imageId' | 'position'> &
  Partial<Pick<Watermark, 'marginPercent' | 'widthPercent' | 'opacity'>>;

/** The watermark of a request with its left-out numbers at their defaults. */
export function withWatermarkDefaults(request: WatermarkRequest): Watermark {
  return {
    imageId: request.imageId,
    position: request.position,
    marginPercent: request.marginPercent ?? watermarkBounds.marginPercent.default,
    widthPercent: request.widthPercent ?? watermarkBounds.widthPercent.default,
    opacity: request.opacity ?? watermarkBounds.opacity.default,
  };
}

/** Images a watermark is made of: PNG (with alpha) or JPEG, at most 2 MB. */
export const imageFormats = ['png', 'jpeg'] as const;
export type ImageFormat = (typeof imageFormats)[number];
export const imageMaxBytes = 2 * 1024 * 1024;
/** The largest edge an image may have: a watermark is scaled down to at most half a 4K picture's width. */
export const imageMaxEdge = 8192;
export const imageContentTypes: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg' };

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * The format and size of a PNG or JPEG, read from its header (PNG's IHDR, JPEG's start of frame);
 * undefined for anything else, or a header cut short.
 */
export function imageHeaderOf(data: Uint8Array): { format: ImageFormat; width: number; height: number } | undefined {
  const u16 = (at: number) => (data[at]! << 8) | data[at + 1]!;
  const u32 = (at: number) => u16(at) * 65536 + u16(at + 2);
  if (data.length >= 24 && pngSignature.every((byte, k) => data[k] === byte)) {
    // IHDR is always the first chunk: its width and height follow the chunk's length and type.
    const ihdr = String.fromCharCode(...data.subarray(12, 16));
    return ihdr === 'IHDR' ? { format: 'png', width: u32(16), height: u32(20) } : undefined;
  }
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return undefined;
  let offset = 2; // after SOI
  while (offset + 9 < data.length) {
    if (data[offset] !== 0xff) return undefined;
    const marker = data[offset + 1]!;
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { format: 'jpeg', height: u16(offset + 5), width: u16(offset + 7) };
    }
    offset += 2 + u16(offset + 2);
  }
  return undefined;
}
