import { Args, Flags } from '@oclif/core';
import type { AudioTrack } from '@kino/sdk';
import { ApiCommand } from '../../../api-command.ts';

export default class VideosAudioTracksAdd extends ApiCommand {
  static override description =
    'Add an audio track (a second language) to a ready video from a file with sound; an added track of the same language is replaced. It is offered once its status is ready (videos audio-tracks list).';
  static override examples = [
    '<%= config.bin %> videos audio-tracks add vid_123 ./spanish.m4a --language es',
    '<%= config.bin %> videos audio-tracks add vid_123 ./dub.mp4 --language pt-BR --name "Português" --default',
  ];
  static override args = {
    id: Args.string({ description: 'video id', required: true }),
    file: Args.string({ description: 'a file with an audio stream (its first is taken)', required: true }),
  };
  static override flags = {
    language: Flags.string({ description: 'BCP 47 language tag, e.g. es or pt-BR', required: true }),
    name: Flags.string({ description: "the name players show (default: the language's name)" }),
    default: Flags.boolean({ description: 'players start with this track unless the viewer picks another' }),
  };

  async run(): Promise<AudioTrack> {
    const { args, flags } = await this.parse(VideosAudioTracksAdd);
    const { kino, orgId } = await this.api(flags);
    // The file is uploaded to the video's environment, as a source is.
    const { envId } = await kino.videos.get(orgId, args.id);
    const uploaded = await kino.uploads.upload(orgId, envId, args.file);
    const track = await kino.videos.addAudioTrack(orgId, args.id, {
      storagePath: uploaded.bucketPath,
      language: flags.language,
      ...(flags.name ? { name: flags.name } : {}),
      ...(flags.default ? { default: true } : {}),
    });
    this.log(`${track.language}  ${track.name}${track.default ? '  (default)' : ''}  ${track.status}`);
    return track;
  }
}
