// The thumbnail picker: scrub a slider over the video and see the frame under it from the
// storyboard's sprite tiles (no seeking needed; the player follows the slider when it is there),
// then make that instant the default thumbnail through the API (POST .../thumbnails, setAsDefault).
import { useMemo, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/react-query';
import { parseStoryboard, tileAt } from '@kino/player/storyboard';

export interface ThumbnailPickerProps {
  durationSeconds: number;
  storyboardUrl: string | undefined;
  thumbnailUrl: string | null;
  /** The player's element, when it is on the page. */
  video: HTMLVideoElement | null;
  /** Makes `timestamp` the default thumbnail. */
  onPick: (timestamp: number) => Promise<unknown>;
}

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${(seconds % 60).toFixed(1).padStart(4, '0')}`;

export function ThumbnailPicker({ durationSeconds, storyboardUrl, thumbnailUrl, video, onPick }: ThumbnailPickerProps) {
  const [time, setTime] = useState(0);
  const [saving, setSaving] = useState<'idle' | 'saving' | 'saved' | { error: string }>('idle');
  const storyboard = useQuery({
    queryKey: ['storyboard', storyboardUrl],
    enabled: storyboardUrl !== undefined,
    staleTime: Infinity,
    queryFn: async () => {
      const response = await fetch(storyboardUrl!);
      if (!response.ok) throw new Error(`storyboard: ${response.status}`);
      return parseStoryboard(await response.text(), storyboardUrl!);
    },
  });
  const tile = useMemo(() => (storyboard.data ? tileAt(storyboard.data, time) : undefined), [storyboard.data, time]);
  // The API takes an instant strictly inside the video.
  const last = Math.max(0, Math.floor((durationSeconds - 0.1) * 10) / 10);

  const scrub = (seconds: number) => {
    setTime(seconds);
    setSaving('idle');
    if (video) {
      video.pause();
      video.currentTime = seconds;
    }
  };

  const pick = async () => {
    setSaving('saving');
    try {
      await onPick(time);
      setSaving('saved');
    } catch (error) {
      setSaving({ error: (error as Error).message });
    }
  };

  return (
    <div class="thumbnail-picker" data-testid="thumbnail-picker">
      <div class="frames">
        <figure>
          {thumbnailUrl ? (
            <img class="frame" src={thumbnailUrl} alt="Current thumbnail" data-testid="current-thumbnail" />
          ) : (
            <div class="frame" />
          )}
          <figcaption class="muted">Current</figcaption>
        </figure>
        <figure>
          {tile ? (
            <div
              class="frame"
              data-testid="storyboard-tile"
              style={{
                width: `${tile.width}px`,
                height: `${tile.height}px`,
                backgroundImage: `url("${tile.sheet}")`,
                backgroundPosition: `-${tile.x}px -${tile.y}px`,
              }}
            />
          ) : (
            <div class="frame" />
          )}
          <figcaption class="muted">At {clock(time)}</figcaption>
        </figure>
      </div>
      <input
        type="range"
        min={0}
        max={last}
        step={0.1}
        value={time}
        aria-label="Thumbnail instant"
        data-testid="thumbnail-scrubber"
        onInput={(event) => scrub(Number(event.currentTarget.value))}
      />
      <div class="actions">
        {video && (
          <button type="button" onClick={() => scrub(Math.min(last, Math.round(video.currentTime * 10) / 10))}>
            Use the player's frame
          </button>
        )}
        <button
          type="button"
          class="primary"
          disabled={saving === 'saving'}
          data-testid="thumbnail-set"
          onClick={() => void pick()}
        >
          Set as thumbnail
        </button>
        {saving === 'saved' && <span data-testid="thumbnail-saved">Saved.</span>}
        {typeof saving === 'object' && <span class="error">{saving.error}</span>}
      </div>
    </div>
  );
}
