import { Args } from '@oclif/core';
import type { RevokedNode } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { operatorFlags } from '../../node-flags.ts';

export default class NodesRevoke extends ApiCommand {
  static override description =
    'Revoke an encode node’s credential for good: the registry refuses it from the node’s next call on, and the node is dropped now (the encodes it runs move to other nodes). Enroll a new node to replace it (kino admin nodes enroll).';
  static override args = { id: Args.string({ description: 'node id (kino nodes list)', required: true }) };
  static override flags = { ...operatorFlags };

  async run(): Promise<RevokedNode> {
    const { args, flags } = await this.parse(NodesRevoke);
    const { kino } = await this.api(flags, ['apiUrl', 'operatorToken']);
    const revoked = await kino.nodes.revoke(args.id);
    this.log(`${revoked.id} (${revoked.name}): revoked at ${revoked.revokedAt}; its credential no longer works`);
    return revoked;
  }
}
