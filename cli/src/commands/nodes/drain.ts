import { Args } from '@oclif/core';
import type { EncodeNode } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { operatorFlags } from '../../node-flags.ts';

export default class NodesDrain extends ApiCommand {
  static override description =
    'Drain an encode node: it takes no new encodes and finishes those it runs (it stays drained until `kino nodes undrain`).';
  static override args = { id: Args.string({ description: 'node id (kino nodes list)', required: true }) };
  static override flags = { ...operatorFlags };

  async run(): Promise<EncodeNode> {
    const { args, flags } = await this.parse(NodesDrain);
    const { kino } = await this.api(flags, ['apiUrl', 'operatorToken']);
    const node = await kino.nodes.drain(args.id);
    this.log(
      `${node.id} (${node.address}): draining; encodes it runs finish; ${node.slotsInUse} of ${node.slots} slots in use`,
    );
    return node;
  }
}
