// "Did you mean …?" for a name a request sent that the schema does not know: the known name a typo
// most likely came from. Shared by the API (bodies, query strings) and delivery (query strings).

/**
 * Edits between two names: insertions, deletions, substitutions and swaps of two neighbours (the
 * optimal string alignment distance), so `Lenght` is one edit from `Length`, as a typist sees it.
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name closest to `name`, letter case ignored, when it is close enough to be a typo of it:
 * at most one edit in four letters of the known name (one for `url`, three for `maxEdgeLength`).
 * The first of equally close names wins, so pass them in the schema's order.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let closest: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance > Math.max(1, Math.floor(candidate.length / 4))) continue;
    if (!closest || distance < closest.distance) closest = { name: candidate, distance };
  }
  return closest?.name;
}
