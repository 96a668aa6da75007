import { Args } from '@oclif/core';
import type { Image } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class ImagesUpload extends ApiCommand {
  static override description =
    "Upload an image (a PNG or JPEG of at most 2 MB) to the environment: its id, printed on stdout, is a watermark's (videos upload --watermark, environments update --watermark).";
  static override examples = [
    '<%= config.bin %> images upload logo.png',
    '<%= config.bin %> videos upload talk.mp4 --watermark "$(<%= config.bin %> images upload logo.png)" --watermark-position bottom-right',
  ];
  static override args = { file: Args.string({ description: 'a PNG or JPEG file', required: true }) };

  async run(): Promise<Image> {
    const { args, flags } = await this.parse(ImagesUpload);
    const { readFile } = await import('node:fs/promises');
    const { UsageError } = await import('../../api-command.ts');
    const bytes = await readFile(args.file).catch(() => {
      throw new UsageError(`not a file: ${args.file}`);
    });
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const image = await kino.images.upload(orgId, envId, bytes);
    this.log(image.imageId);
    this.note(`${image.format.toUpperCase()}, ${image.width}x${image.height}, ${image.sizeBytes} bytes`);
    return image;
  }
}
