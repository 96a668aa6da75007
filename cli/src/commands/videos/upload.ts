import { Args, Flags } from '@oclif/core';
import type { VideoDetails } from '@kino/sdk';
import { additionalVideoCodecs, compressionRatios, encodingModes, videoQualities } from '@kino/proto/contract';
import { ApiCommand, UsageError } from '../../api-command.ts';
import type { VideoLinks } from '../../video-links.ts';
import { watermarkFlags, watermarkOfFlags } from '../../watermark-flags.ts';

export interface UploadedVideo {
  /** The argument: a file, or an http(s) URL Kino fetched (ingest). */
  file: string;
  videoID: string;
  /** Where the file went (absent for a URL: Kino stores what it fetches itself). */
  storagePath?: string;
  /** With --wait: the video's details once it is ready or failed. */
  video?: VideoDetails;
  /** With --wait, once ready: where to play it, embed it and see it in the dashboard. */
  playbackUrl?: VideoLinks['playbackUrl'];
  embedUrl?: VideoLinks['embedUrl'];
  dashboardUrl?: VideoLinks['dashboardUrl'];
}

export default class VideosUpload extends ApiCommand {
  static override description = [
    'Upload video files, or ingest http(s) URLs, and process them.',
    'A progress bar per file (bytes, rate, time left) shows on stderr when it is a terminal.',
    'An http(s) URL in place of a file is ingested: Kino fetches it (resuming a dropped connection) and processes it.',
    'Large files go up in parts: interrupted (Ctrl-C), the same command run again resumes where it stopped.',
    "Each video's id is printed on stdout as processing starts.",
    '--wait follows processing: exit 0 when every video is ready (then its playback URL, embed URL and dashboard page are printed), 3 when one failed.',
  ].join('\n');

  static override examples = [
    '<%= config.bin %> videos upload talk.mp4 --wait',
    '<%= config.bin %> videos upload *.mov --quality high --public --json',
    '<%= config.bin %> videos upload https://example.com/talk.mp4 --wait',
    '<%= config.bin %> videos upload talk.mp4 --encoding-mode contentAware --codecs av1,hevc',
    '<%= config.bin %> videos upload talk.mp4 --watermark img_123 --watermark-position bottom-right --watermark-width 10',
  ];

  static override strict = false;
  static override args = {
    file: Args.string({ description: 'video file or http(s) URL (several may be given)', required: true }),
  };
  static override flags = {
    name: Flags.string({
      description: "the video's name (one file only; default the file name, or the URL's last path segment)",
    }),
    quality: Flags.option({ options: videoQualities, description: 'rendition ladder', default: 'standard' })(),
    public: Flags.boolean({ description: 'playable without a signed URL (default: signed URLs only)', default: false }),
    compression: Flags.option({
      options: compressionRatios,
      description: "encoder speed against size (the API's default when unset)",
    })(),
    'encoding-mode': Flags.option({
      options: encodingModes,
      description:
        "fixed: the ladder's bitrates; contentAware: what the content needs, never more (the API's default, fixed, when unset)",
    })(),
    codecs: Flags.option({
      options: additionalVideoCodecs,
      multiple: true,
      delimiter: ',',
      description:
        'renditions in these codecs too, comma-separated (av1,hevc), beside the H.264 ladder that every video has',
    })(),
    'node-labels': Flags.string({
      multiple: true,
      delimiter: ',',
      description: 'labels every encode node of the video must carry, comma-separated (acme: your own nodes)',
    }),
    ...watermarkFlags,
    'generate-captions': Flags.string({
      multiple: true,
      delimiter: ',',
      description:
        'make caption tracks from the speech once ready, in these languages, comma-separated (auto: the language heard)',
    }),
    wait: Flags.boolean({ description: 'wait until every video is ready or failed' }),
    timeout: Flags.integer({ description: 'with --wait: give up after this many seconds', default: 1800, min: 1 }),
  };

  async run(): Promise<UploadedVideo[]> {
    const { argv, flags } = await this.parse(VideosUpload);
    const files = argv as string[];
    if (flags.name && files.length > 1)
      throw new UsageError('--name names one video: give one file, or leave --name out');
    const { existsSync, statSync } = await import('node:fs');
    const isUrl = (arg: string) => /^https?:\/\//i.test(arg);
    const notFiles = files.filter((file) => !isUrl(file) && (!existsSync(file) || !statSync(file).isFile()));
    if (notFiles.length > 0) throw new UsageError(`not a file: ${notFiles.join(', ')}`);
    const watermark = watermarkOfFlags(flags, (message) => new UsageError(message));
    const { basename } = await import('node:path');
    const { kino, orgId, envId, connection } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const { fileResumeStore } = await import('@kino/sdk/node');
    const { uploadStateDir } = await import('../../profiles.ts');
    const { uploadProgress } = await import('../../upload-progress.ts');
    const resumeStore = fileResumeStore(uploadStateDir());

    const { mib } = await import('../../upload-progress.ts');
    // Ctrl-C stops the upload cleanly (the parts that arrived stay for a rerun), then exits 130.
    const interrupt = new AbortController();
    const onSigint = () => interrupt.abort(new Error('interrupted'));
    process.once('SIGINT', onSigint);
    const bars = await uploadProgress(files.map((file) => basename(file)));
    // The encoding options given, the same for a file and a URL; those left out take the API's defaults.
    const encoding = {
      ...(flags.compression ? { compressionRatio: flags.compression } : {}),
      ...(flags['encoding-mode'] ? { encodingMode: flags['encoding-mode'] } : {}),
      // `--codecs av1,av1` means av1: the API takes each codec once.
      ...(flags.codecs ? { additionalCodecs: [...new Set(flags.codecs)] } : {}),
      ...(flags['node-labels'] ? { nodeLabels: [...new Set(flags['node-labels'])] } : {}),
      ...(watermark ? { watermark } : {}),
      ...(flags['generate-captions']
        ? { generatedSubtitles: [...new Set(flags['generate-captions'])].map((language) => ({ language })) }
        : {}),
    };
    const uploaded: UploadedVideo[] = [];
    try {
      for (const [index, file] of files.entries()) {
        if (isUrl(file)) {
          const { videoID } = await kino.videos.ingest(orgId, envId, {
            url: file,
            videoQuality: flags.quality,
            allowPublicAccess: flags.public,
            ...(flags.name ? { videoName: flags.name } : {}),
            ...encoding,
          });
          bars.finish(index);
          uploaded.push({ file, videoID });
          bars.log(`${file}: Kino is fetching it`);
          continue;
        }
        const result = await kino.uploads.upload(orgId, envId, file, {
          signal: interrupt.signal,
          resumeStore,
          onProgress: (progress) => bars.update(index, progress),
        });
        bars.finish(index);
        const { videoID } = await kino.videos.process(orgId, envId, {
          storagePath: result.bucketPath,
          videoQuality: flags.quality,
          allowPublicAccess: flags.public,
          videoName: flags.name ?? basename(file),
          ...encoding,
        });
        uploaded.push({ file, videoID, storagePath: result.bucketPath });
        bars.log(
          `${basename(file)}: uploaded${result.resumedBytes > 0 ? ` (resumed: ${mib(result.resumedBytes)} MiB were already there)` : ''}, processing`,
        );
      }
    } catch (error) {
      if (interrupt.signal.aborted) {
        bars.stop();
        this.note('Interrupted: run the same command again to resume the upload.');
        this.exit(130);
      }
      throw error;
    } finally {
      bars.stop();
      process.removeListener('SIGINT', onSigint);
    }
    if (!this.jsonEnabled()) for (const video of uploaded) this.log(video.videoID);
    if (!flags.wait) return uploaded;

    const { waitForVideos } = await import('../../wait.ts');
    const { VideoFailedError } = await import('../../api-command.ts');
    try {
      const labels = uploaded.map((u) => (isUrl(u.file) ? u.file : basename(u.file)));
      const videos = await waitForVideos(
        kino,
        orgId,
        uploaded.map((u) => u.videoID),
        flags.timeout,
        labels,
      );
      const { privateLinkExpiration, videoLinks } = await import('../../video-links.ts');
      const ready = await Promise.all(
        uploaded.map(async (u, i) => ({
          ...u,
          video: videos[i],
          ...(await videoLinks(kino, connection.settings.apiUrl!, orgId, videos[i]!)),
        })),
      );
      if (!this.jsonEnabled()) {
        for (const [index, video] of ready.entries()) {
          this.log(`\n${labels[index]}`);
          this.log(`  Playback   ${video.playbackUrl}`);
          this.log(`  Embed      ${video.embedUrl}`);
          this.log(`  Dashboard  ${video.dashboardUrl}`);
        }
        if (ready.some((video) => !video.video?.allowPublicAccess)) {
          this.note(
            `A private video's playback and embed URLs carry a token that works for ${privateLinkExpiration}; \`kino playback url\` makes others.`,
          );
        }
      }
      return ready;
    } catch (error) {
      if (error instanceof VideoFailedError && Array.isArray(error.data)) {
        const videos = error.data as VideoDetails[];
        throw new VideoFailedError(
          error.message,
          uploaded.map((u, i) => ({ ...u, video: videos[i] })),
        );
      }
      throw error;
    }
  }
}
