import { Flags } from '@oclif/core';
import type { EncodeNode } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { operatorFlags } from '../../node-flags.ts';

export default class NodesList extends ApiCommand {
  static override description =
    'List the encode nodes: id, address, version, labels, working encoders, slots in use, last heartbeat, state (gone ones with --all); then the encodes no live node can run, and why.';
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
            .map(([k, v]) => (v === '' ? k : `${k}=${v}`))
            .join(','),
          // Older nodes report none: blank rather than a claim.
          can: [...n.encoders, ...(n.qualityFfmpeg ? ['quality ffmpeg'] : [])].join(','),
          slots: `${n.slotsInUse}/${n.slots}`,
          heartbeat: formatDate(n.lastHeartbeatAt),
          state: n.state === 'draining' && n.drainRequestedAt ? 'draining (operator)' : n.state,
        })),
        [
          { key: 'id', name: 'ID' },
          { key: 'address', name: 'Address' },
          { key: 'version', name: 'Version' },
          { key: 'labels', name: 'Labels' },
          { key: 'can', name: 'Encoders' },
          { key: 'slots', name: 'Slots used', numeric: true },
          { key: 'heartbeat', name: 'Last heartbeat' },
          { key: 'state', name: 'State' },
        ],
        'no encode nodes',
      );
      // Work no live node can run waits (for a node with the quality ffmpeg, a label): say which and why.
      const waiting = await kino.nodes.waiting();
      if (waiting.length > 0) {
        this.log(`\n${waiting.length} encode(s) wait for a node that can run them:`);
        await printTable(
          waiting.map((w) => ({ video: w.videoId, job: w.job, why: w.waitingFor, since: formatDate(w.enqueuedAt) })),
          [
            { key: 'video', name: 'Video' },
            { key: 'job', name: 'Job' },
            { key: 'why', name: 'Waiting for' },
            { key: 'since', name: 'Since' },
          ],
          '',
        );
      }
    }
    return nodes;
  }
}
