// A video's caption tracks: add (a WebVTT or SRT file for a language, replacing that language's
// track), list with their download links, remove. The player shows the tracks (its hls.js reads the
// master playlist's subtitles group); the page reloads it when the tracks change.
import { useState } from 'preact/hooks';
import type { AddCaptionParams, CaptionTrack } from '@kino/sdk';
import { api, json } from '../../api.ts';
import { useList, useListChange } from '../../use-list.ts';
import { useToast } from '../../components/toasts.tsx';
import { EmptyState } from '../../components/empty-state.tsx';

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
  const tracks = useList(['captions', orgId, videoId], () =>
    api<{ captions: CaptionTrack[] }>(`${videoPath}/captions`),
  );
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
  const remove = useListChange(
    tracks,
    (lang: string) => api(`${videoPath}/captions/${encodeURIComponent(lang)}`, { method: 'DELETE' }),
    async () => {
      toast('Caption track removed.');
      await onChange();
    },
  );

  return (
    <section class="card" data-testid="captions">
      <h2>Captions</h2>
      <form
        class="share-form"
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
        <label>
          Default
          <input
            type="checkbox"
            checked={isDefault}
            data-testid="caption-default"
            onChange={(event) => setIsDefault(event.currentTarget.checked)}
          />
        </label>
        <button type="submit" class="primary" data-testid="caption-add" disabled={add.isPending || !file}>
          Add track
        </button>
      </form>
      {(add.error ?? remove.error) && (
        <p class="error" role="alert" data-testid="caption-error">
          {((add.error ?? remove.error) as Error).message}
        </p>
      )}
      {tracks.list.data && tracks.list.data.captions.length === 0 && (
        <EmptyState
          title="No caption tracks"
          command={`kino videos captions add ${videoId} captions.vtt --language en`}
        >
          Add a WebVTT or SRT file above, in the language it is written in. Or from a terminal:
        </EmptyState>
      )}
      {tracks.list.data && tracks.list.data.captions.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Language</th>
              <th>Label</th>
              <th>Default</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tracks.list.data.captions.map((track) => (
              <tr key={track.language} data-testid="caption-row" data-language={track.language}>
                <td>
                  <a href={track.url} target="_blank" rel="noreferrer">
                    {track.language}
                  </a>
                </td>
                <td>{track.label}</td>
                <td>{track.default ? 'yes' : ''}</td>
                <td>
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
    </section>
  );
}
