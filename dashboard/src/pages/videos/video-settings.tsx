// A video's editable settings: name, description, access and metadata (PATCH .../videos/{id}). The
// form starts from the details; only the fields that changed are sent, and an emptied description
// or metadata field is cleared (null). The details and the tables are refreshed from the answer.
import { useState } from 'preact/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UpdateVideoParams, VideoDetails } from '@kino/sdk';
import { api, json } from '../../api.ts';
import { useToast } from '../../components/toasts.tsx';
import { changesOf, formOf, type SettingsForm as Form } from './settings-form.ts';

export function VideoSettings({ video, videoPath, orgId }: { video: VideoDetails; videoPath: string; orgId: string }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const before = formOf(video);
  const [form, setForm] = useState<Form>(before);
  const save = useMutation({
    mutationFn: (changes: UpdateVideoParams) => api<VideoDetails>(videoPath, json('PATCH', changes)),
    onSuccess: (updated) => {
      queryClient.setQueryData(['video', orgId, video.id], updated);
      setForm(formOf(updated));
      void queryClient.invalidateQueries({ queryKey: ['videos', orgId] });
      toast('Settings saved.');
    },
  });
  const changes = changesOf(before, form);
  const field = (key: keyof Form) => (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
    setForm({ ...form, [key]: event.currentTarget.value });

  return (
    <section data-testid="video-settings">
      <h2>Settings</h2>
      <form
        class="settings-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (Object.keys(changes).length > 0) save.mutate(changes);
        }}
      >
        <label>
          Name
          <input value={form.name} required maxLength={255} data-testid="settings-name" onInput={field('name')} />
        </label>
        <label>
          Description
          <textarea
            value={form.description}
            maxLength={5000}
            rows={3}
            data-testid="settings-description"
            onInput={field('description')}
          />
        </label>
        <label class="inline">
          <input
            type="checkbox"
            checked={form.public}
            data-testid="settings-public"
            onChange={(event) => setForm({ ...form, public: event.currentTarget.checked })}
          />
          Public (anyone with the URL plays it; otherwise signed URLs only)
        </label>
        <label>
          External id
          <input
            value={form.externalId}
            maxLength={128}
            placeholder="your application's id"
            data-testid="settings-external-id"
            onInput={field('externalId')}
          />
        </label>
        <label>
          Creator id
          <input
            value={form.creatorId}
            maxLength={128}
            data-testid="settings-creator-id"
            onInput={field('creatorId')}
          />
        </label>
        <label>
          Passthrough
          <input
            value={form.passthrough}
            maxLength={255}
            data-testid="settings-passthrough"
            onInput={field('passthrough')}
          />
        </label>
        <button
          type="submit"
          class="primary"
          data-testid="settings-save"
          disabled={save.isPending || Object.keys(changes).length === 0}
        >
          Save
        </button>
      </form>
      {save.error && (
        <p class="error" role="alert" data-testid="settings-error">
          {(save.error as Error).message}
        </p>
      )}
    </section>
  );
}
