// How numbers are written for people in API responses.
import { deliveryPaths } from '@kino/proto/contract';

/** Seconds as minutes:seconds (`125.4` → `2:05`); minutes keep counting past an hour (`75:00`). */
export function formatDuration(seconds: number | null | undefined): string {
  const total = Math.max(0, Math.round(seconds ?? 0));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/** Estimated views (spec: segments served ÷ (duration ÷ 6)); 0 before anything is known. */
export function estimateViews(segmentsServed: number, durationSeconds: number | null | undefined): number {
  if (!durationSeconds || durationSeconds <= 0 || segmentsServed <= 0) return 0;
  const segmentsPerView = Math.max(1, durationSeconds / 6);
  return Math.floor(segmentsServed / segmentsPerView);
}

/** A view count as people read it: `0 views`, `1 view`, `999 views`, `1.2K views`, `3M views`. */
export function formatViews(views: number): string {
  const count = Math.max(0, Math.floor(views));
  if (count === 1) return '1 view';
  const units: [number, string][] = [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ];
  for (const [size, suffix] of units) {
    if (count >= size) {
      // Truncated, never rounded up (1,999 is "1.9K", 999,999 is "999K"); one decimal below 100.
      const scaled = count / size;
      const shown = scaled >= 100 ? Math.floor(scaled) : Math.floor(scaled * 10) / 10;
      return `${shown}${suffix} views`;
    }
  }
  return `${count} views`;
}

/**
 * The default thumbnail size: 640 on the long edge, the source's aspect ratio, even sides
 * (640x360 for 16:9, 360x640 for a portrait 9:16); 640x360 while the size is not known.
 */
export function thumbnailSize(
  width: number | null | undefined,
  height: number | null | undefined,
): { width: number; height: number } {
  if (!width || !height || width <= 0 || height <= 0) return { width: 640, height: 360 };
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return width >= height
    ? { width: 640, height: even((640 * height) / width) }
    : { width: even((640 * width) / height), height: 640 };
}

/** The delivery host's thumbnail URL for a video (`/t/{id}/<w>x<h>.jpg`). */
export function thumbnailUrl(
  deliveryUrl: string,
  videoId: string,
  width: number | null,
  height: number | null,
): string {
  const size = thumbnailSize(width, height);
  return `${deliveryUrl}${deliveryPaths.thumbnail(videoId, size.width, size.height)}`;
}
