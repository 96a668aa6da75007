// Webhooks of the current environment: add (the signing secret is shown once), list, remove;
// through the ordinary API (/v1/api/{orgID}/environments/{envID}/webhooks).
import { useState } from 'preact/hooks';
import { webhookEvents, type WebhookEvent } from '@kino/proto/contract';
import { api, API_ROOT, json } from '../api.ts';
import { useSession } from '../session.tsx';
import { SecretOnce, when } from '../components/secret-once.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { firstError, useList, useListChange } from '../use-list.ts';

interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
}

export function WebhooksPage() {
  const session = useSession();
  const org = session.org!;
  const env = session.env;
  const base = `${API_ROOT}/${org.id}/environments/${env?.id}/webhooks`;
  const webhooks = useList(['webhooks', org.id, env?.id], () => api<{ webhooks: Webhook[] }>(base), { enabled: Boolean(env) });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([...webhookEvents]);
  const [secret, setSecret] = useState<string | undefined>();
  const add = useListChange(
    webhooks,
    () => api<Webhook & { secret: string }>(base, json('POST', { url, events })),
    (created) => {
      setSecret(created.secret);
      setUrl('');
    },
  );
  const remove = useListChange(webhooks, (id: string) => api(`${base}/${id}`, { method: 'DELETE' }));
  if (!env) return <p class="muted">This organization has no environment yet.</p>;
  const problem = firstError(add, remove, webhooks.list);

  return (
    <section>
      <h1>Webhooks</h1>
      <p class="muted">
        Events of {env.name} are POSTed to these URLs, signed with the webhook's secret (Standard Webhooks).
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <label>
          URL
          <input data-testid="webhook-url" type="url" required size={40} placeholder="https://example.com/hooks/kino" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        {webhookEvents.map((name) => (
          <label key={name}>
            <span>
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(e) => setEvents(e.currentTarget.checked ? [...events, name] : events.filter((x) => x !== name))}
              />{' '}
              {name}
            </span>
          </label>
        ))}
        <button type="submit" class="primary" data-testid="add-webhook" disabled={add.isPending || events.length === 0}>
          Add webhook
        </button>
      </form>
      {secret && <SecretOnce label="Signing secret." value={secret} testId="webhook-secret" onDismiss={() => setSecret(undefined)} />}
      <ErrorNote error={problem} />
      <table data-testid="webhooks-table">
        <thead>
          <tr>
            <th>URL</th>
            <th>Events</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {webhooks.list.data?.webhooks.map((hook) => (
            <tr key={hook.id} data-testid={`webhook-${hook.id}`}>
              <td>{hook.url}</td>
              <td>{hook.events.join(', ')}</td>
              <td>{when(hook.createdAt)}</td>
              <td>
                <button
                  type="button"
                  class="danger"
                  data-testid="remove-webhook"
                  onClick={() => {
                    if (confirm(`Remove the webhook to ${hook.url}?`)) remove.mutate(hook.id);
                  }}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {webhooks.list.data?.webhooks.length === 0 && <p class="muted">No webhooks in {env.name}.</p>}
    </section>
  );
}
