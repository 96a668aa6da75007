import { Args, Flags } from '@oclif/core';
import type { UpdateVideoParams, VideoDetails } from '@kino/sdk';
import { ApiCommand, UsageError } from '../../api-command.ts';

/** An empty value clears the field (null in the PATCH body). */
const orNull = (value: string | undefined) => (value === undefined ? undefined : value === '' ? null : value);

export default class VideosUpdate extends ApiCommand {
  static override description =
    'Change a video: its name, description, access or metadata. An empty value ("") clears a description or a metadata field.';
  static override examples = [
    '<%= config.bin %> videos update vid_123 --name "Keynote 2026" --private',
    '<%= config.bin %> videos update vid_123 --external-id post-42 --creator-id user-7',
    '<%= config.bin %> videos update vid_123 --description ""',
  ];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    name: Flags.string({ description: 'the new name' }),
    description: Flags.string({ description: 'the new description ("" clears it)' }),
    public: Flags.boolean({ description: 'anyone with the URL may play it', exclusive: ['private'] }),
    private: Flags.boolean({ description: 'playing it needs a signed URL', exclusive: ['public'] }),
    'external-id': Flags.string({
      description: "your application's id for the video (a `videos list --external-id` filter)",
    }),
    'creator-id': Flags.string({ description: 'who made it, in your terms' }),
    passthrough: Flags.string({ description: 'any string, stored and returned as given' }),
  };

  async run(): Promise<VideoDetails> {
    const { args, flags } = await this.parse(VideosUpdate);
    const metadata = {
      ...(flags['external-id'] !== undefined ? { externalId: orNull(flags['external-id']) } : {}),
      ...(flags['creator-id'] !== undefined ? { creatorId: orNull(flags['creator-id']) } : {}),
      ...(flags.passthrough !== undefined ? { passthrough: orNull(flags.passthrough) } : {}),
    };
    const changes: UpdateVideoParams = {
      ...(flags.name !== undefined ? { videoName: flags.name } : {}),
      ...(flags.description !== undefined ? { description: orNull(flags.description) } : {}),
      // An absent boolean flag is undefined, not false: --private alone must send false.
      ...(flags.public || flags.private ? { allowPublicAccess: flags.public === true } : {}),
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
    if (Object.keys(changes).length === 0) {
      throw new UsageError(
        'Nothing to change: give at least one of --name, --description, --public, --private, --external-id, --creator-id, --passthrough.',
      );
    }
    const { kino, orgId } = await this.api(flags);
    const video = await kino.videos.update(orgId, args.id, changes);
    this.note(`Updated ${video.id}`);
    return video;
  }
}
