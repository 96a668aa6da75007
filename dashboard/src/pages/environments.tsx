// Environments of the organization: list (GET /v1/api/{orgID}/environments) and create (the API
// has no route for that; /dashboard/api/{orgID}/environments).
import { useState } from 'preact/hooks';
import { api, API_ROOT, json } from '../api.ts';
import { useSession, type SessionEnvironment } from '../session.tsx';
import { when } from '../components/secret-once.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { firstError, useList, useListChange } from '../use-list.ts';

export function EnvironmentsPage() {
  const session = useSession();
  const org = session.org!;
  const environments = useList(['environments', org.id], () => api<{ environments: SessionEnvironment[] }>(`${API_ROOT}/${org.id}/environments`));
  const [name, setName] = useState('');
  const create = useListChange(
    environments,
    () => api<SessionEnvironment>(`/dashboard/api/${org.id}/environments`, json('POST', { name })),
    async (created) => {
      setName('');
      // The pickers list environments from the session.
      await session.reload();
      session.setEnv(created.id);
    },
  );
  const problem = firstError(create, environments.list);

  return (
    <section>
      <h1>Environments</h1>
      <p class="muted">Environments keep videos apart (development, staging, production); an environment key reaches one of them.</p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <label>
          Name
          <input data-testid="env-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
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
              <td>{when(env.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
