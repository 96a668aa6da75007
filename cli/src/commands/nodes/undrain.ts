import { Args } from '@oclif/core';
import type { EncodeNode } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { operatorFlags } from '../../node-flags.ts';

export default class NodesUndrain extends ApiCommand {
  static override description = 'Undrain an encode node an operator drained: it takes new encodes again at once.';
  static override args = { id: Args.string({ description: 'node id (kino nodes list)', required: true }) };
  static override flags = { ...operatorFlags };

  async run(): Promise<EncodeNode> {
    const { args, flags } = await this.parse(NodesUndrain);
    const { kino } = await this.api(flags, ['apiUrl', 'operatorToken']);
    const node = await kino.nodes.undrain(args.id);
    this.log(`${node.id} (${node.address}): takes work again; ${node.slotsInUse} of ${node.slots} slots in use`);
    return node;
  }
}
