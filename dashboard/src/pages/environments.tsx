// Environments of the organization: list (GET /v1/api/{orgID}/environments), create (the API
// has no route for that; /dashboard/api/{orgID}/environments), and set each one's just-in-time
// segments (PATCH /v1/api/{orgID}/environments/{envID}).
import { useState } from 'preact/hooks';
import type { Environment } from '@kino/sdk';
import { api, API_ROOT, json } from '../api.ts';
import { useSession } from '../session.tsx';
import { when } from '../components/secret-once.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { Skeleton } from '../components/skeleton.tsx';
import { firstError, useList, useListChange } from '../use-list.ts';

/** The select's values: the API's true, false and null (the farm's default, an empty value). */
const justInTimeChoices = [
  { value: '', justInTime: null, label: 'Farm default' },
  { value: 'on', justInTime: true, label: 'On' },
  { value: 'off', justInTime: false, label: 'Off' },
] as const;

export function EnvironmentsPage() {
  const session = useSession();
  const org = session.org!;
  const environments = useList(['environments', org.id], () =>
    api<{ environments: Environment[] }>(`${API_ROOT}/${org.id}/environments`),
  );
  const [name, setName] = useState('');
  const create = useListChange(
    environments,
    () => api<Environment>(`/dashboard/api/${org.id}/environments`, json('POST', { name })),
    async (created) => {
      setName('');
      // The pickers list environments from the session.
      await session.reload();
      session.setEnv(created.id);
    },
  );
  const setJustInTime = useListChange(
    environments,
    ({ envId, justInTime }: { envId: string; justInTime: boolean | null }) =>
      api<Environment>(`${API_ROOT}/${org.id}/environments/${envId}`, json('PATCH', { justInTime })),
  );
  const problem = firstError(create, setJustInTime, environments.list);

  return (
    <section>
      <h1>Environments</h1>
      <p class="muted">
        Environments keep videos apart (development, staging, production); an environment key reaches one of them.
        Just-in-time: a video plays once its first segments exist and the rest follow (on), or only once its whole
        ladder is made (off); the farm's default is the operators' choice. Videos processed from then on follow a
        change.
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <label>
          Name
          <input
            data-testid="env-name"
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" data-testid="create-env" disabled={create.isPending}>
          Create environment
        </button>
      </form>
      <ErrorNote error={problem} />
      <table data-testid="environments-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Id</th>
            <th>Just-in-time</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {environments.list.data?.environments.map((env) => (
            <tr key={env.id}>
              <td>{env.name}</td>
              <td>
                <code>{env.id}</code>
              </td>
              <td>
                <select
                  data-testid="env-just-in-time"
                  aria-label={`Just-in-time segments in ${env.name}`}
                  value={justInTimeChoices.find((choice) => choice.justInTime === env.justInTime)?.value}
                  disabled={setJustInTime.isPending}
                  onChange={(e) => {
                    const chosen = justInTimeChoices.find((choice) => choice.value === e.currentTarget.value)!;
                    setJustInTime.mutate({ envId: env.id, justInTime: chosen.justInTime });
                  }}
                >
                  {justInTimeChoices.map((choice) => (
                    <option key={choice.value} value={choice.value}>
                      {choice.label}
                    </option>
                  ))}
                </select>
              </td>
              <td>{when(env.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {environments.list.isPending && <Skeleton lines={3} label="Loading the environments" />}
    </section>
  );
}
