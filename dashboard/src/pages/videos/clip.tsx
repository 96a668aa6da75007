// Making a clip from the player's position: "Start here" and "End here" take the player's current
// time (or type the seconds), and "Make clip" creates the clip through the API and links to it. By
// default the clip is ready at once: it plays the source's segments covering the range (whole
// segments). "Frame-accurate" makes it play exactly the range: its first and last segments are
// encoded again, so it is transcoding for a moment.
import { useState } from 'preact/hooks';
import { useMutation } from '@tanstack/react-query';
import { useToast } from '../../components/toasts.tsx';
import type { CreateClipParams, ProcessVideoResult } from '@kino/sdk';
import { api, json } from '../../api.ts';

const seconds = (value: number) => value.toFixed(2);

export function ClipMaker({
  videoPath,
  durationSeconds,
  video,
}: {
  videoPath: string;
  durationSeconds: number;
  video: HTMLVideoElement | null;
}) {
  const [start, setStart] = useState('0');
  const [end, setEnd] = useState(seconds(Math.min(durationSeconds, 10)));
  const [frameAccurate, setFrameAccurate] = useState(false);
  const toast = useToast();
  const create = useMutation({
    mutationFn: (params: CreateClipParams) => api<ProcessVideoResult>(`${videoPath}/clips`, json('POST', params)),
    onSuccess: () => toast('Clip started: it is ready in a moment.'),
  });
  const here = (set: (value: string) => void) => () => {
    if (video) set(seconds(video.currentTime));
  };

  return (
    <section data-testid="clip-maker">
      <h2>Clip</h2>
      <form
        class="share-form"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({
            startTime: Number(start),
            endTime: Number(end),
            ...(frameAccurate ? { frameAccurate: true } : {}),
          });
        }}
      >
        <label>
          Start (s)
          <input
            type="number"
            min="0"
            step="0.01"
            value={start}
            required
            data-testid="clip-start"
            onInput={(event) => setStart(event.currentTarget.value)}
          />
        </label>
        <button type="button" data-testid="clip-start-here" disabled={!video} onClick={here(setStart)}>
          Start here
        </button>
        <label>
          End (s)
          <input
            type="number"
            min="0"
            step="0.01"
            value={end}
            required
            data-testid="clip-end"
            onInput={(event) => setEnd(event.currentTarget.value)}
          />
        </label>
        <button type="button" data-testid="clip-end-here" disabled={!video} onClick={here(setEnd)}>
          End here
        </button>
        <label>
          <input
            type="checkbox"
            checked={frameAccurate}
            data-testid="clip-frame-accurate"
            onChange={(event) => setFrameAccurate(event.currentTarget.checked)}
          />
          Frame-accurate
        </label>
        <button type="submit" class="primary" data-testid="clip-create" disabled={create.isPending}>
          Make clip
        </button>
      </form>
      <p class="muted">
        The clip plays whole segments of this video (6 s each) covering the range, or with Frame-accurate exactly the
        range (its first and last segments are encoded again: it is ready a little later). It stays after this video is
        deleted.
      </p>
      {create.error && (
        <p class="error" role="alert" data-testid="clip-error">
          {(create.error as Error).message}
        </p>
      )}
      {create.data && (
        <p data-testid="clip-made">
          Clip made: <a href={`/dashboard/videos/${encodeURIComponent(create.data.videoID)}`}>{create.data.videoID}</a>
        </p>
      )}
    </section>
  );
}
