// The farm (operators): encode nodes with their slots in use, last heartbeat and state; drain,
// undrain and revoke (a node's credential, for good). /dashboard/api/farm/nodes runs the operators' interface's code with an operator's session.
import type { EncodeNode } from '@kino/sdk';
import { api } from '../api.ts';
import { useSession } from '../session.tsx';
import { when } from '../components/secret-once.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { Skeleton } from '../components/skeleton.tsx';
import { firstError, useList, useListChange } from '../use-list.ts';

export function FarmPage() {
  const session = useSession();
  const nodes = useList(['farm-nodes'], () => api<{ nodes: EncodeNode[] }>('/dashboard/api/farm/nodes'), {
    enabled: session.operator,
    // Slots and heartbeats change by the second: keep the page current.
    refetchInterval: 5_000,
  });
  const drain = useListChange(nodes, ({ id, draining }: { id: string; draining: boolean }) =>
    api<EncodeNode>(`/dashboard/api/farm/nodes/${id}/${draining ? 'drain' : 'undrain'}`, { method: 'POST' }),
  );
  const revoke = useListChange(nodes, ({ id }: { id: string }) =>
    api(`/dashboard/api/farm/nodes/${id}/revoke`, { method: 'POST' }),
  );
  if (!session.operator) return <p class="muted">The farm is for operators.</p>;
  const problem = firstError(drain, revoke, nodes.list);
  const live = nodes.list.data?.nodes.filter((n) => n.state !== 'gone') ?? [];

  return (
    <section>
      <h1>Farm</h1>
      <p class="muted">
        {live.length} node{live.length === 1 ? '' : 's'} live, {live.reduce((sum, n) => sum + n.slotsInUse, 0)} of{' '}
        {live.reduce((sum, n) => sum + n.slots, 0)} slots in use. A drained node finishes what it runs and takes nothing
        new.
      </p>
      <ErrorNote error={problem} />
      <table data-testid="farm-table">
        <thead>
          <tr>
            <th>Node</th>
            <th>Address</th>
            <th>Version</th>
            <th>Labels</th>
            <th>Slots in use</th>
            <th>Last heartbeat</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {nodes.list.data?.nodes.map((node) => (
            <tr key={node.id} data-testid={`node-${node.id}`}>
              <td>
                <code>{node.id}</code>
              </td>
              <td>{node.address}</td>
              <td>{node.version}</td>
              <td>
                {Object.entries(node.labels)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(', ')}
              </td>
              <td>
                {node.slotsInUse} / {node.slots}
              </td>
              <td>{when(node.lastHeartbeatAt)}</td>
              <td data-testid="node-state">{node.state}</td>
              <td>
                {node.state !== 'gone' && (
                  <button
                    type="button"
                    data-testid={node.drainRequestedAt ? 'undrain-node' : 'drain-node'}
                    onClick={() => drain.mutate({ id: node.id, draining: !node.drainRequestedAt })}
                  >
                    {node.drainRequestedAt ? 'Undrain' : 'Drain'}
                  </button>
                )}{' '}
                <button
                  type="button"
                  data-testid="revoke-node"
                  onClick={() => {
                    // For good: the node's credential never works again, and its encodes move to other nodes.
                    if (window.confirm(`Revoke ${node.id}? Its credential will never work again.`))
                      revoke.mutate({ id: node.id });
                  }}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {nodes.list.isPending && <Skeleton lines={3} label="Loading the encode nodes" />}
      {nodes.list.data?.nodes.length === 0 && <p class="muted">No encode node has registered.</p>}
    </section>
  );
}
