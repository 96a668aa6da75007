import { Args, Flags } from '@oclif/core';
import type { Environment } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { justInTimeSettings, justInTimeWord, justInTimeWords } from '../../environment-settings.ts';

export default class EnvironmentsUpdate extends ApiCommand {
  static override description =
    "Change an environment's settings: just-in-time segments on (a video plays once its first segments exist), off (once its whole ladder is made), or the farm's default. Videos processed from now on follow it.";
  static override examples = [
    '<%= config.bin %> environments update env_123 --just-in-time off',
    '<%= config.bin %> environments update env_123 --just-in-time default',
  ];
  static override args = { id: Args.string({ description: 'environment id', required: true }) };
  static override flags = {
    'just-in-time': Flags.option({
      options: justInTimeWords,
      description: "on, off, or default (the farm's setting)",
      required: true,
    })(),
  };

  async run(): Promise<Environment> {
    const { args, flags } = await this.parse(EnvironmentsUpdate);
    const { kino, orgId } = await this.api(flags);
    const environment = await kino.environments.update(orgId, args.id, {
      justInTime: justInTimeSettings[flags['just-in-time']],
    });
    this.note(
      `Updated ${environment.id} (${environment.name}): just-in-time ${justInTimeWord(environment.justInTime)}`,
    );
    return environment;
  }
}
