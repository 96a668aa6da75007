// Original file: kino.proto


/**
 * A video's watermark as a node draws it: the image fetched through its presigned GET (a PNG or
 * JPEG of at most 2 MB, checked by the API), its width and margins shares of each rendition's
 * picture (@kino/ffmpeg watermarkPixels), so it looks the same at every rung. Every field is set.
 */
export interface Watermark {
  'imageUrl'?: (string);
  /**
   * top-left, top-right, bottom-left, bottom-right, center
   */
  'position'?: (string);
  /**
   * 0..20: of the width (left, right) and the height (top, bottom)
   */
  'marginPercent'?: (number | string);
  /**
   * 1..50: of the picture's width
   */
  'widthPercent'?: (number | string);
  /**
   * 0..1
   */
  'opacity'?: (number | string);
}

/**
 * A video's watermark as a node draws it: the image fetched through its presigned GET (a PNG or
 * JPEG of at most 2 MB, checked by the API), its width and margins shares of each rendition's
 * picture (@kino/ffmpeg watermarkPixels), so it looks the same at every rung. Every field is set.
 */
export interface Watermark__Output {
  'imageUrl': (string);
  /**
   * top-left, top-right, bottom-left, bottom-right, center
   */
  'position': (string);
  /**
   * 0..20: of the width (left, right) and the height (top, bottom)
   */
  'marginPercent': (number);
  /**
   * 1..50: of the picture's width
   */
  'widthPercent': (number);
  /**
   * 0..1
   */
  'opacity': (number);
}
