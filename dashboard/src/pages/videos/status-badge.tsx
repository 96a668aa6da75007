import type { VideoStatus } from '@kino/sdk';

/** A video's status as a coloured label (videos.css). */
export function StatusBadge({ status }: { status: VideoStatus }) {
  return (
    <span class={`status status-${status}`} data-testid="video-status" data-status={status}>
      {status}
    </span>
  );
}
