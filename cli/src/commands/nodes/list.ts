import { Flags } from '@oclif/core';
import type { EncodeNode } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { operatorFlags } from '../../node-flags.ts';

export default class NodesList extends ApiCommand {
  static override description =
    'List the encode nodes: id, address, version, labels, slots in use, last heartbeat, state (gone ones with --all).';
  static override flags = {
    ...operatorFlags,
    all: Flags.boolean({ description: 'include nodes that are gone' }),
  };

  async run(): Promise<EncodeNode[]> {
    const { flags } = await this.parse(NodesList);
    const { kino } = await this.api(flags, ['apiUrl', 'operatorToken']);
    const nodes = (await kino.nodes.list()).filter((node) => flags.all || node.state !== 'gone');
    if (!this.jsonEnabled()) {
      const { formatDate, printTable } = await import('../../output.ts');
      await printTable(
        nodes.map((n) => ({
          id: n.id,
          address: n.address,
          version: n.version,
          labels: Object.entries(n.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
          slots: `${n.slotsInUse}/${n.slots}`,
          heartbeat: formatDate(n.lastHeartbeatAt),
          state: n.state === 'draining' && n.drainRequestedAt ? 'draining (operator)' : n.state,
        })),
        [
          { key: 'id', name: 'ID' },
          { key: 'address', name: 'Address' },
          { key: 'version', name: 'Version' },
          { key: 'labels', name: 'Labels' },
          { key: 'slots', name: 'Slots used', numeric: true },
          { key: 'heartbeat', name: 'Last heartbeat' },
          { key: 'state', name: 'State' },
        ],
        'no encode nodes',
      );
    }
    return nodes;
  }
}
