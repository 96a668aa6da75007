import { Args } from '@oclif/core';
import type { VideoDetails } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class VideosGet extends ApiCommand {
  static override description = 'Show one video: its state, its settings and its encodings.';
  static override args = { id: Args.string({ description: 'video id', required: true }) };

  async run(): Promise<VideoDetails> {
    const { args, flags } = await this.parse(VideosGet);
    const { kino, orgId } = await this.api(flags);
    const video = await kino.videos.get(orgId, args.id);
    if (!this.jsonEnabled()) {
      const { formatDate, printTable } = await import('../../output.ts');
      const { videoState } = await import('../../video-state.ts');
      const lines: [string, string][] = [
        ['ID', video.id],
        ['Name', video.name],
        ['Status', videoState(video)],
        ['Duration', video.duration],
        ['Quality', video.videoQuality],
        ['Encoding mode', video.encodingMode],
        ['Extra codecs', video.additionalCodecs.join(', ') || 'none'],
        ...(video.nodeLabels.length > 0 ? [['Node labels', video.nodeLabels.join(', ')] as [string, string]] : []),
        ...(video.waitingFor ? [['Waiting for', video.waitingFor] as [string, string]] : []),
        ['Public', video.allowPublicAccess ? 'yes' : 'no'],
        ['Created', formatDate(video.createdAt)],
        ['Public id', video.publicID],
        ['Thumbnail', video.thumbnailUrl ?? ''],
        ['Audio', video.audioUrl ?? ''],
        ['Served', video.served],
      ];
      const width = Math.max(...lines.map(([label]) => label.length));
      for (const [label, value] of lines) this.log(`${label.padEnd(width)}  ${value}`);
      if (video.encodings.length > 0) {
        this.log('');
        // '-' where a rendition was not measured (made before VMAF and the average were kept, or not yet).
        await printTable(
          video.encodings.map((e) => ({
            key: e.key,
            codec: e.videoCodec,
            short: e.shortEdgePixels,
            video: e.videoStreamBitrate,
            measured: e.averageBitrate ?? '-',
            vmaf: e.vmaf ?? '-',
            audio: e.audioStreamBitrate,
            fps: e.maxFrameRate,
          })),
          [
            { key: 'key', name: 'Encoding' },
            { key: 'codec', name: 'Codec' },
            { key: 'short', name: 'Short edge', numeric: true },
            { key: 'video', name: 'Video kbit/s', numeric: true },
            { key: 'measured', name: 'Measured kbit/s', numeric: true },
            { key: 'vmaf', name: 'VMAF', numeric: true },
            { key: 'audio', name: 'Audio kbit/s', numeric: true },
            { key: 'fps', name: 'Max fps', numeric: true },
          ],
        );
      }
    }
    return video;
  }
}
