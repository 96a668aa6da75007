// One caption track's words (GET .../transcript, as text): shown to read, with Copy and a download as
// a .txt file made in the page (a Blob URL: the words are already here, and the delivery host's file
// is the WebVTT, cues and all).
import { useEffect, useMemo } from 'preact/hooks';
import { useQuery } from '@tanstack/react-query';
import type { CaptionTrack, Transcript as TranscriptAnswer } from '@kino/sdk';
import { api } from '../../api.ts';
import { CopyButton } from '../../components/copy-chip.tsx';
import { Skeleton } from '../../components/skeleton.tsx';

export function Transcript({
  videoPath,
  videoId,
  track,
  onClose,
}: {
  videoPath: string;
  videoId: string;
  track: CaptionTrack;
  onClose: () => void;
}) {
  const { language } = track;
  const transcript = useQuery({
    // A file uploaded in place of a generated track (or the other way round) has other words.
    queryKey: ['transcript', videoPath, language, track.source, track.label],
    queryFn: () =>
      api<TranscriptAnswer>(`${videoPath}/transcript?language=${encodeURIComponent(language)}&format=text`),
  });
  const text = transcript.data?.text;
  const download = useMemo(
    () => (text === undefined ? undefined : URL.createObjectURL(new Blob([text], { type: 'text/plain' }))),
    [text],
  );
  useEffect(() => () => download && URL.revokeObjectURL(download), [download]);

  return (
    <section class="transcript" aria-labelledby="transcript-title" data-testid="transcript">
      <div class="transcript-head">
        <h2 id="transcript-title">Transcript ({language})</h2>
        <div class="actions">
          {text !== undefined && <CopyButton text={text} />}
          {download && (
            <a class="button" href={download} download={`${videoId}-${language}.txt`} data-testid="transcript-download">
              Download .txt
            </a>
          )}
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      {transcript.error ? (
        <p class="error">{(transcript.error as Error).message}</p>
      ) : text === undefined ? (
        <Skeleton lines={4} />
      ) : (
        <pre class="transcript-text" tabIndex={0} data-testid="transcript-text">
          {text || 'No words were heard.'}
        </pre>
      )}
    </section>
  );
}
