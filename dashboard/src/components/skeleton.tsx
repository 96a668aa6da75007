// What stands in for content on its way: grey blocks of its shape, so a page under a slow answer
// shows where things will be instead of a blank card or a lone "Loading…", and nothing jumps when
// they come. One component for every page; screen readers hear "Loading" once (a status region).
export function Skeleton({
  lines = 3,
  box,
  label = 'Loading',
}: {
  /** Text lines to stand in for. */
  lines?: number;
  /** A block of this aspect ratio (`16 / 9` for a player) above the lines. */
  box?: string;
  label?: string;
}) {
  return (
    <div class="skeleton" role="status" aria-label={label} data-testid="skeleton">
      {box && <div class="skeleton-box" style={{ aspectRatio: box }} />}
      {Array.from({ length: lines }, (_, index) => (
        <div key={index} class="skeleton-line" style={{ width: `${[92, 76, 84, 60][index % 4]}%` }} />
      ))}
    </div>
  );
}
