import { Args, Flags } from '@oclif/core';
import type { DeleteVideoResult } from '@kino/sdk';
import { deleteReasons } from '@kino/proto/contract';
import { ApiCommand, UsageError } from '../../api-command.ts';

export default class VideosDelete extends ApiCommand {
  static override description =
    'Delete a video: its playback stops and its files go. Asks first on a terminal; --yes does not ask.';
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    reason: Flags.option({ options: deleteReasons, description: 'why (recorded)', default: 'user_request' })(),
    yes: Flags.boolean({ char: 'y', description: 'do not ask for confirmation' }),
  };

  async run(): Promise<DeleteVideoResult> {
    const { args, flags } = await this.parse(VideosDelete);
    const { kino, orgId } = await this.api(flags);
    if (!flags.yes) {
      if (!process.stdin.isTTY) throw new UsageError('deleting without a terminal to confirm on needs --yes');
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await rl.question(`Delete video ${args.id}? Type its id to confirm: `);
      rl.close();
      if (answer.trim() !== args.id) throw new UsageError('not confirmed: nothing deleted');
    }
    const result = await kino.videos.delete(orgId, args.id, { reason: flags.reason });
    this.log(`Deleted ${args.id} at ${result.deletedAt}`);
    return result;
  }
}
