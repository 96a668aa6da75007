// Webhooks of the current environment: add (the signing secret is shown once), list, remove, and
// each one's delivery log with redeliver and a test event; through the ordinary API
// (/v1/api/{orgID}/environments/{envID}/webhooks).
import { useState } from 'preact/hooks';
import { webhookEvents, type WebhookEvent } from '@kino/proto/contract';
import { api, API_ROOT, json } from '../api.ts';
import { useSession } from '../session.tsx';
import { SecretOnce, when } from '../components/secret-once.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { useToast } from '../components/toasts.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { firstError, useList, useListChange } from '../use-list.ts';
import { webhooksPage, type Webhook } from './webhooks-page.ts';
import { Skeleton } from '../components/skeleton.tsx';

interface Delivery {
  id: string;
  messageId: string;
  event: string;
  attempt: number;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  createdAt: string;
}

/** How often an open log is read again: retries land in it by themselves. */
const LOG_REFRESH_MS = 5_000;

/** A webhook's latest deliveries, newest first, with Redeliver on each and Send test above. */
function DeliveryLog({ base, webhookId }: { base: string; webhookId: string }) {
  const path = `${base}/${webhookId}`;
  const log = useList(['webhook-deliveries', webhookId], () => api<{ deliveries: Delivery[] }>(`${path}/deliveries`), {
    refetchInterval: LOG_REFRESH_MS,
  });
  const redeliver = useListChange(log, (deliveryId: string) =>
    api<Delivery>(`${path}/deliveries/${deliveryId}/redeliver`, { method: 'POST' }),
  );
  const test = useListChange(log, () => api<Delivery>(`${path}/test`, { method: 'POST' }));
  const deliveries = log.list.data?.deliveries;
  return (
    <div data-testid="delivery-log">
      <p>
        <button type="button" data-testid="send-test" disabled={test.isPending} onClick={() => test.mutate()}>
          Send test event
        </button>
      </p>
      <ErrorNote error={firstError(redeliver, test, log.list)} />
      {deliveries?.length === 0 && <p class="muted">No deliveries yet.</p>}
      {deliveries && deliveries.length > 0 && (
        <table data-testid="deliveries-table">
          <thead>
            <tr>
              <th>Event</th>
              <th>Attempt</th>
              <th>Status</th>
              <th>Duration</th>
              <th>Time</th>
              <th>Error</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id} data-testid={`delivery-${d.id}`}>
                <td>{d.event}</td>
                <td>{d.attempt}</td>
                <td>{d.responseStatus ?? '—'}</td>
                <td>{d.durationMs} ms</td>
                <td>{when(d.createdAt)}</td>
                <td>{d.error ?? ''}</td>
                <td>
                  <button
                    type="button"
                    data-testid="redeliver"
                    disabled={redeliver.isPending}
                    onClick={() => redeliver.mutate(d.id)}
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function WebhooksPage() {
  const session = useSession();
  const org = session.org!;
  const env = session.env;
  const base = `${API_ROOT}/${org.id}/environments/${env?.id}/webhooks`;
  const webhooks = useList(['webhooks', org.id, env?.id], () => api<{ webhooks: Webhook[] }>(base), {
    enabled: Boolean(env),
  });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([...webhookEvents]);
  const [secret, setSecret] = useState<string | undefined>();
  const [openLog, setOpenLog] = useState<string | undefined>();
  const [page, setPage] = useState(1);
  const toast = useToast();
  const add = useListChange(
    webhooks,
    () => api<Webhook & { secret: string }>(base, json('POST', { url, events })),
    (created) => {
      setSecret(created.secret);
      setUrl('');
      // The new one is the first row of the first page.
      setPage(1);
      toast('Webhook added.');
    },
  );
  const remove = useListChange(
    webhooks,
    (id: string) => api(`${base}/${id}`, { method: 'DELETE' }),
    () => toast('Webhook removed.'),
  );
  if (!env) return <p class="muted">This organization has no environment yet.</p>;
  const problem = firstError(add, remove, webhooks.list);
  const { rows, pages } = webhooksPage(webhooks.list.data?.webhooks ?? [], page);

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
          <input
            data-testid="webhook-url"
            type="url"
            required
            size={40}
            placeholder="https://example.com/hooks/kino"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
        {webhookEvents.map((name) => (
          <label key={name}>
            <span>
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(e) =>
                  setEvents(e.currentTarget.checked ? [...events, name] : events.filter((x) => x !== name))
                }
              />{' '}
              {name}
            </span>
          </label>
        ))}
        <button type="submit" class="primary" data-testid="add-webhook" disabled={add.isPending || events.length === 0}>
          Add webhook
        </button>
      </form>
      {secret && (
        <SecretOnce
          label="Signing secret."
          value={secret}
          testId="webhook-secret"
          onDismiss={() => setSecret(undefined)}
        />
      )}
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
          {rows.map((hook) => [
            <tr key={hook.id} data-testid={`webhook-${hook.id}`}>
              <td class="truncate" title={hook.url}>
                {hook.url}
              </td>
              <td>
                <ul class="chips">
                  {hook.events.map((event) => (
                    <li key={event}>{event}</li>
                  ))}
                </ul>
              </td>
              <td>{when(hook.createdAt)}</td>
              <td>
                <button
                  type="button"
                  data-testid="show-deliveries"
                  aria-expanded={openLog === hook.id}
                  onClick={() => setOpenLog(openLog === hook.id ? undefined : hook.id)}
                >
                  Deliveries
                </button>{' '}
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
            </tr>,
            openLog === hook.id && (
              <tr key={`${hook.id}-log`}>
                <td colSpan={4}>
                  <DeliveryLog base={base} webhookId={hook.id} />
                </td>
              </tr>
            ),
          ])}
        </tbody>
      </table>
      {pages > 1 && (
        <div class="paging" data-testid="webhooks-paging">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            ← Previous
          </button>
          <span>
            Page {Math.min(page, pages)} of {pages} · {webhooks.list.data?.webhooks.length} webhooks
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next →
          </button>
        </div>
      )}
      {webhooks.list.isPending && <Skeleton lines={3} label="Loading the webhooks" />}
      {webhooks.list.data?.webhooks.length === 0 && (
        <EmptyState
          title={`No webhooks in ${env.name} yet`}
          command="kino webhooks add https://example.com/hooks/kino --events video.processing.completed"
        >
          Add a URL above and Kino POSTs each event of this environment to it, signed with the webhook's secret. Or from
          a terminal:
        </EmptyState>
      )}
    </section>
  );
}
