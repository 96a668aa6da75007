import { Args, Flags } from '@oclif/core';
import type { CaptionTrack } from '@kino/sdk';
import { ApiCommand } from '../../../api-command.ts';

export default class VideosCaptionsAdd extends ApiCommand {
  static override description =
    'Add a caption track (WebVTT or SRT) to a ready video; a track of the same language is replaced.';
  static override examples = [
    '<%= config.bin %> videos captions add vid_123 ./english.vtt --language en --default',
    '<%= config.bin %> videos captions add vid_123 ./portugues.srt --language pt-BR --label "Português"',
  ];
  static override args = {
    id: Args.string({ description: 'video id', required: true }),
    file: Args.string({ description: 'the caption file (.vtt or .srt; at most 2 MB)', required: true }),
  };
  static override flags = {
    language: Flags.string({ description: 'BCP 47 language tag, e.g. en or pt-BR', required: true }),
    label: Flags.string({ description: "the name players show (default: the language's name)" }),
    format: Flags.string({
      description: 'the file format (default: from the file name, else vtt)',
      options: ['vtt', 'srt'],
    }),
    default: Flags.boolean({ description: 'players show this track unless the viewer picks another' }),
  };

  async run(): Promise<CaptionTrack> {
    const { args, flags } = await this.parse(VideosCaptionsAdd);
    const { readFile } = await import('node:fs/promises');
    const content = await readFile(args.file, 'utf8');
    const format = (flags.format ?? (args.file.toLowerCase().endsWith('.srt') ? 'srt' : 'vtt')) as 'vtt' | 'srt';
    const { kino, orgId } = await this.api(flags);
    const track = await kino.videos.addCaption(orgId, args.id, {
      language: flags.language,
      content,
      format,
      ...(flags.label ? { label: flags.label } : {}),
      ...(flags.default ? { default: true } : {}),
    });
    this.log(`${track.language}  ${track.label}${track.default ? '  (default)' : ''}`);
    this.log(track.url);
    return track;
  }
}
