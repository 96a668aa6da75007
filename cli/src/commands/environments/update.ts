import { Args, Flags } from '@oclif/core';
import type { Environment } from '@kino/sdk';
import { ApiCommand, UsageError } from '../../api-command.ts';
import { justInTimeSettings, justInTimeWord, justInTimeWords } from '../../environment-settings.ts';
import { watermarkFlags, watermarkOfFlags } from '../../watermark-flags.ts';

export default class EnvironmentsUpdate extends ApiCommand {
  static override description =
    "Change an environment's settings: just-in-time segments on (a video plays once its first segments exist), off (once its whole ladder is made), or the farm's default; hardware encoding (never, allowed); the node labels its videos' encodes need; the watermark of its videos. Videos processed from now on follow them.";
  static override examples = [
    '<%= config.bin %> environments update env_123 --just-in-time off',
    '<%= config.bin %> environments update env_123 --just-in-time default',
    '<%= config.bin %> environments update env_123 --hardware-encoding allowed --node-labels acme',
    '<%= config.bin %> environments update env_123 --watermark img_123 --watermark-position bottom-left',
    '<%= config.bin %> environments update env_123 --watermark none',
  ];
  static override args = { id: Args.string({ description: 'environment id', required: true }) };
  static override flags = {
    'just-in-time': Flags.option({
      options: justInTimeWords,
      description: "on, off, or default (the farm's setting)",
    })(),
    'hardware-encoding': Flags.option({
      options: ['never', 'allowed'] as const,
      description:
        "allowed: nodes' working hardware encoders (NVENC, VA-API, Quick Sync) may make its videos' renditions",
    })(),
    'node-labels': Flags.string({
      description: 'labels every encode node of its videos must carry, comma-separated; "" for any node',
    }),
    ...watermarkFlags,
    watermark: Flags.string({
      description: 'the default watermark of its videos: an image id (kino images upload), or none',
    }),
  };

  async run(): Promise<Environment> {
    const { args, flags } = await this.parse(EnvironmentsUpdate);
    const labels = flags['node-labels'];
    const watermark = flags.watermark === 'none' ? null : watermarkOfFlags(flags, (message) => new UsageError(message));
    const settings = {
      ...(flags['just-in-time'] ? { justInTime: justInTimeSettings[flags['just-in-time']] } : {}),
      ...(flags['hardware-encoding'] ? { hardwareEncoding: flags['hardware-encoding'] } : {}),
      ...(labels !== undefined ? { nodeLabels: labels.split(',').filter((label) => label !== '') } : {}),
      ...(watermark !== undefined ? { watermark } : {}),
    };
    if (Object.keys(settings).length === 0)
      throw new UsageError(
        'give a setting to change: --just-in-time, --hardware-encoding, --node-labels or --watermark',
      );
    const { kino, orgId } = await this.api(flags);
    const environment = await kino.environments.update(orgId, args.id, settings);
    this.note(
      `Updated ${environment.id} (${environment.name}): just-in-time ${justInTimeWord(environment.justInTime)}, ` +
        `hardware encoding ${environment.hardwareEncoding}, node labels ${environment.nodeLabels.join(',') || 'none'}, ` +
        `watermark ${environment.watermark ? `${environment.watermark.imageId} (${environment.watermark.position})` : 'none'}`,
    );
    return environment;
  }
}
