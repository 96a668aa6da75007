// The Range header (RFC 9110 §14): one byte range per request. A header Kino does not understand
// (another unit, several ranges, bad syntax) is ignored and the whole object is sent, as the RFC
// allows; a well-formed range that starts past the end is 416.

export type RangeResult =
  { type: 'full' } | { type: 'partial'; start: number; end: number } | { type: 'unsatisfiable' };

const single = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/;

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { type: 'full' };
  const match = single.exec(header);
  if (!match) return { type: 'full' };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return { type: 'full' };
  if (first === '') {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { type: 'unsatisfiable' };
    return { type: 'partial', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (last !== '' && end < start) return { type: 'full' };
  if (start >= size) return { type: 'unsatisfiable' };
  return { type: 'partial', start, end: Math.min(end, size - 1) };
}
