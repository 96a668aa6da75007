// API keys of the organization: create (environment or full access; the key is shown once), list
// (prefix, type, environment, created, last used), revoke. The API key operations limit applies
// (20 per hour per organization). The server is /dashboard/api/{orgID}/keys.
import { useState } from 'preact/hooks';
import { api, json } from '../api.ts';
import { useSession } from '../session.tsx';
import { SecretOnce, when } from '../components/secret-once.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { Skeleton } from '../components/skeleton.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { firstError, useList, useListChange } from '../use-list.ts';

interface ApiKey {
  id: string;
  type: 'environment' | 'full';
  envId: string | null;
  live: boolean;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function KeysPage() {
  const session = useSession();
  const org = session.org!;
  const keys = useList(['keys', org.id], () => api<{ keys: ApiKey[] }>(`/dashboard/api/${org.id}/keys`));
  const [type, setType] = useState<'environment' | 'full'>('environment');
  const [envId, setEnvId] = useState(session.env?.id ?? '');
  const [live, setLive] = useState(false);
  // The new key in clear: this component's state only, gone at "Done" or when the page is left.
  // Kept with its id: revoking that key takes its box away (a dead secret is not worth copying).
  const [created, setCreated] = useState<{ id: string; apiKey: string } | undefined>();

  const create = useListChange(
    keys,
    () =>
      api<ApiKey & { apiKey: string }>(
        `/dashboard/api/${org.id}/keys`,
        json('POST', { type, live, ...(type === 'environment' ? { envId: envId || session.env?.id } : {}) }),
      ),
    (key) => setCreated({ id: key.id, apiKey: key.apiKey }),
  );
  const revoke = useListChange(
    keys,
    (id: string) => api<ApiKey>(`/dashboard/api/${org.id}/keys/${id}`, { method: 'DELETE' }),
    (revoked) => setCreated((shown) => (shown?.id === revoked.id ? undefined : shown)),
  );
  const envName = (id: string | null) =>
    id ? (org.environments.find((e) => e.id === id)?.name ?? id) : 'all environments';
  const problem = firstError(create, revoke, keys.list);

  return (
    <section>
      <h1>API keys</h1>
      <p class="muted">
        A key reaches one environment, or every environment of {org.name} (full access). Send it in the{' '}
        <code>X-Api-Key</code> header.
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <label>
          Access
          <select data-testid="key-type" value={type} onChange={(e) => setType(e.currentTarget.value as typeof type)}>
            <option value="environment">One environment</option>
            <option value="full">Full access (every environment)</option>
          </select>
        </label>
        {type === 'environment' && (
          <label>
            Environment
            <select
              data-testid="key-env"
              value={envId || session.env?.id}
              onChange={(e) => setEnvId(e.currentTarget.value)}
            >
              {org.environments.map((e) => (
                <option key={e.id} value={e.id}>
                  {e.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          <span>
            <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> Live key
            (svc_live_)
          </span>
        </label>
        <button type="submit" class="primary" data-testid="create-key" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {created && (
        <SecretOnce
          label="New API key."
          value={created.apiKey}
          testId="new-key"
          onDismiss={() => setCreated(undefined)}
        />
      )}
      <ErrorNote error={problem} testId="keys-error" />
      <table data-testid="keys-table">
        <thead>
          <tr>
            <th>Key</th>
            <th>Access</th>
            <th>Environment</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys.list.data?.keys.map((key) => (
            <tr key={key.id} data-testid={`key-${key.id}`} data-prefix={key.prefix}>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{key.type === 'full' ? 'full access' : 'environment'}</td>
              <td>{envName(key.envId)}</td>
              <td>{when(key.createdAt)}</td>
              <td>{when(key.lastUsedAt)}</td>
              <td data-testid="key-status">{key.revokedAt ? `revoked ${when(key.revokedAt)}` : 'active'}</td>
              <td>
                {!key.revokedAt && (
                  <button
                    type="button"
                    class="danger"
                    data-testid="revoke-key"
                    onClick={() => {
                      if (confirm(`Revoke ${key.prefix}…? Requests with it will be refused at once.`))
                        revoke.mutate(key.id);
                    }}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {keys.list.isPending && <Skeleton lines={3} label="Loading the API keys" />}
      {keys.list.data?.keys.length === 0 && (
        <EmptyState
          title="No API keys yet"
          command="curl -H 'X-Api-Key: <key>' https://<api host>/v1/api/<org>/environments"
        >
          Create a key above for your application or the CLI: its secret is shown once. Then call the API with it:
        </EmptyState>
      )}
    </section>
  );
}
