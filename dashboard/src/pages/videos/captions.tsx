// A video's caption tracks: make one from the speech (POST .../captions/generate, in the language
// chosen or the one heard), add one from a file (WebVTT or SRT, replacing that language's track),
// list them (each marked uploaded or generated) with their download links, read one's transcript
// (GET .../transcript) to copy or download, remove one. The player shows the tracks (its hls.js
// reads the master playlist's subtitles group); the page makes a new player when the tracks change.
// The list sits under the video's query key, so the live updates (`video.caption.ready` when a
// generated track is stored) refresh it with the video.
import { useState } from 'preact/hooks';
import { useMutation } from '@tanstack/react-query';
import type { AddCaptionParams, CaptionTrack, GeneratingCaptionTrack } from '@kino/sdk';
import { api, json } from '../../api.ts';
import { useList, useListChange } from '../../use-list.ts';
import { useToast } from '../../components/toasts.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Transcript } from './transcript.tsx';

/**
 * The languages offered for generated captions besides the one heard. Which ones a farm can do is its
 * speech engines' (the bundled model hears English); the API answers 400 `unsupported_language` for
 * the rest, which the form shows.
 */
const generateLanguages = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl', 'ja', 'zh', 'hi', 'ar'] as const;

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

export function Captions({
  videoPath,
  orgId,
  videoId,
  onChange,
}: {
  videoPath: string;
  orgId: string;
  videoId: string;
  onChange: () => unknown;
}) {
  const tracks = useList(['video', orgId, videoId, 'captions'], () =>
    api<{ captions: CaptionTrack[] }>(`${videoPath}/captions`),
  );
  const [reading, setReading] = useState<string>();
  const toast = useToast();
  const remove = useListChange(
    tracks,
    (lang: string) => api(`${videoPath}/captions/${encodeURIComponent(lang)}`, { method: 'DELETE' }),
    async () => {
      // A track made later for the language is another track: its transcript is not opened by itself.
      setReading(undefined);
      toast('Caption track removed.');
      await onChange();
    },
  );
  const shown = tracks.list.data?.captions;

  return (
    <section data-testid="captions">
      <div class="tab-columns">
        <GenerateCaptions videoPath={videoPath} />
        <AddCaptionFile videoPath={videoPath} tracks={tracks} onChange={onChange} />
      </div>
      <h2>Tracks</h2>
      {remove.error && (
        <p class="error" role="alert" data-testid="caption-error">
          {(remove.error as Error).message}
        </p>
      )}
      {shown && shown.length === 0 && (
        <EmptyState
          title="No caption tracks"
          command={`kino videos captions add ${videoId} captions.vtt --language en`}
        >
          Generate a track from the speech or add a WebVTT or SRT file above. Or from a terminal:
        </EmptyState>
      )}
      {shown && shown.length > 0 && (
        <table data-testid="caption-tracks">
          <thead>
            <tr>
              <th>Language</th>
              <th>Label</th>
              <th>Made</th>
              <th>Default</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((track) => (
              <tr
                key={track.language}
                data-testid="caption-row"
                data-language={track.language}
                data-source={track.source}
              >
                <td>
                  <a href={track.url} target="_blank" rel="noreferrer">
                    {track.language}
                  </a>
                </td>
                <td>{track.label}</td>
                <td>
                  <span class={`source source-${track.source}`} data-testid="caption-source">
                    {track.source === 'generated' ? 'Generated' : 'Uploaded'}
                  </span>
                </td>
                <td>{track.default ? 'yes' : ''}</td>
                <td class="row-actions">
                  <button
                    type="button"
                    class="link"
                    data-testid="caption-transcript"
                    aria-expanded={reading === track.language}
                    onClick={() => setReading(reading === track.language ? undefined : track.language)}
                  >
                    Transcript
                  </button>
                  <button
                    type="button"
                    class="link"
                    data-testid="caption-remove"
                    onClick={() => remove.mutate(track.language)}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {shown
        ?.filter((track) => track.language === reading)
        .map((track) => (
          <Transcript
            key={track.language}
            videoPath={videoPath}
            videoId={videoId}
            track={track}
            onClose={() => setReading(undefined)}
          />
        ))}
    </section>
  );
}

/** "Generate captions": the speech engines of the farm make a track; it appears in the list when stored. */
function GenerateCaptions({ videoPath }: { videoPath: string }) {
  const [language, setLanguage] = useState('auto');
  const toast = useToast();
  const generate = useMutation({
    mutationFn: () => api<GeneratingCaptionTrack>(`${videoPath}/captions/generate`, json('POST', { language })),
    onSuccess: () => toast('Generating captions: the track appears here when it is ready.'),
  });
  return (
    <form
      class="stacked-form"
      aria-labelledby="generate-captions-title"
      data-testid="caption-generate-form"
      onSubmit={(event) => {
        event.preventDefault();
        generate.mutate();
      }}
    >
      <h2 id="generate-captions-title">Generate from the speech</h2>
      <label>
        Language
        <select
          value={language}
          data-testid="caption-generate-language"
          onChange={(event) => setLanguage(event.currentTarget.value)}
        >
          <option value="auto">The language heard</option>
          {generateLanguages.map((code) => (
            <option key={code} value={code}>
              {languageNames.of(code)}
            </option>
          ))}
        </select>
      </label>
      <p class="muted small">
        Made on the farm by its speech engines; a file added later for the language replaces it.
      </p>
      <div>
        <button type="submit" class="primary" data-testid="caption-generate" disabled={generate.isPending}>
          Generate captions
        </button>
      </div>
      {generate.error && (
        <p class="error" role="alert" data-testid="caption-generate-error">
          {(generate.error as Error).message}
        </p>
      )}
    </form>
  );
}

/** A WebVTT or SRT file for a language; it replaces that language's track. */
function AddCaptionFile({
  videoPath,
  tracks,
  onChange,
}: {
  videoPath: string;
  tracks: { refetch: () => Promise<void> };
  onChange: () => unknown;
}) {
  const [file, setFile] = useState<File>();
  const [language, setLanguage] = useState('');
  const [label, setLabel] = useState('');
  const [isDefault, setIsDefault] = useState(false);
  const toast = useToast();
  const add = useListChange(
    tracks,
    (params: AddCaptionParams) => api<CaptionTrack>(`${videoPath}/captions`, json('POST', params)),
    async (track) => {
      toast(`Caption track ${track.language} added.`);
      await onChange();
    },
  );
  return (
    <form
      class="stacked-form"
      aria-labelledby="add-caption-title"
      onSubmit={(event) => {
        event.preventDefault();
        if (!file) return;
        void file.text().then((content) =>
          add.mutate({
            language: language.trim(),
            content,
            format: file.name.toLowerCase().endsWith('.srt') ? 'srt' : 'vtt',
            ...(label.trim() ? { label: label.trim() } : {}),
            default: isDefault,
          }),
        );
      }}
    >
      <h2 id="add-caption-title">Add a file</h2>
      <label>
        File (.vtt, .srt)
        <input
          type="file"
          accept=".vtt,.srt,text/vtt"
          data-testid="caption-file"
          required
          onChange={(event) => setFile(event.currentTarget.files?.[0])}
        />
      </label>
      <div class="form-row">
        <label>
          Language
          <input
            value={language}
            placeholder="en, pt-BR"
            required
            data-testid="caption-language"
            onInput={(event) => setLanguage(event.currentTarget.value)}
          />
        </label>
        <label>
          Label
          <input
            value={label}
            placeholder="from the language"
            data-testid="caption-label"
            onInput={(event) => setLabel(event.currentTarget.value)}
          />
        </label>
      </div>
      <label class="inline">
        <input
          type="checkbox"
          checked={isDefault}
          data-testid="caption-default"
          onChange={(event) => setIsDefault(event.currentTarget.checked)}
        />
        Players show it unless the viewer picks another
      </label>
      <div>
        <button type="submit" class="primary" data-testid="caption-add" disabled={add.isPending || !file}>
          Add track
        </button>
      </div>
      {add.error && (
        <p class="error" role="alert" data-testid="caption-error">
          {(add.error as Error).message}
        </p>
      )}
    </form>
  );
}
