// Live: a broadcast's whole ladder from one ffmpeg reading the ingest's RTMP relay for as long as the
// publisher publishes (docs/decisions/live.md). How many segments it makes is not known in advance,
// so nothing is presigned: each file ffmpeg closes goes back on the Encode call's own stream
// (EncodeEvent.file) and the orchestrator stores it. A rung's init segment goes before its first
// segment, and each segment before the playlist that names it, so storage never lists a segment it
// does not have. The input's end (ingest closes the relay) ends ffmpeg, whose playlists then carry
// EXT-X-ENDLIST: they go last, then `done`.
import { readFile, readdir, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EncodeDone, EncodeRequest__Output, ProbeResult__Output, RenditionDone } from '@kino/proto';
import { hlsInitName, hlsPlaylistName, measureBandwidth, pixelFormatOfX264 } from '@kino/proto/contract';
import { hlsLadderArgs, parseInitSegment, parseMediaPlaylist, runFfmpeg, type FfmpegProgress } from '@kino/ffmpeg';
import type { EncodeJobOptions, LiveEvent } from '../encode-options.ts';
import { InvalidRequestError } from '../errors.ts';
import { planHlsEncode, type HlsRendition } from '../hls-plan.ts';
import { withJobDir } from '../job-dir.ts';

/** How often the renditions' directories are read for closed files. */
const scanIntervalMs = 250;
/** A file travels in pieces of at most this (gRPC's default message limit is 4 MiB). */
const pieceBytes = 1024 * 1024;
const segmentName = /^seg-\d+\.m4s$/;

/** The source as the live probe described it: a picture and a rate; no duration yet. */
function liveSourceOf(request: EncodeRequest__Output): ProbeResult__Output {
  const { source } = request;
  if (!source || !(source.width > 0 && source.height > 0 && source.frameRate > 0))
    throw new InvalidRequestError('source (the live probe of input_url) is missing or describes no picture');
  return source;
}

export async function runLiveJob(
  options: EncodeJobOptions,
  live: NonNullable<EncodeRequest__Output['live']>,
): Promise<EncodeDone> {
  const { request, logger, sendLive } = options;
  if (!sendLive) throw new InvalidRequestError('a live encode needs a call that streams its files back');
  const source = liveSourceOf(request);
  const plan = planHlsEncode(live.renditions, {}, [], source, options.qualityFfmpeg, options.encoders);
  if (plan.twoPass) throw new InvalidRequestError('a live encode is one pass');
  logger.info({ renditions: plan.renditions.map((r) => r.spec.key) }, 'live encode starting');
  return withJobDir(options.workDir, request.jobId, 'live', async (jobDir) => {
    const outDir = join(jobDir, 'hls');
    await mkdir(outDir);
    for (const rendition of plan.renditions) await mkdir(join(outDir, rendition.spec.key));
    const files = new LiveFiles(outDir, plan.renditions, sendLive);
    const stopScan = files.scanEvery(scanIntervalMs);
    let last: FfmpegProgress | undefined;
    try {
      last = await runFfmpeg(
        hlsLadderArgs({
          input: request.inputUrl,
          outputs: plan.renditions.map((r) => ({ settings: r.settings, dir: r.spec.key })),
          threads: options.threads,
          live: true,
        }),
        {
          program: plan.program,
          cwd: outDir,
          signal: options.signal,
          logger,
          priority: options.priority,
          onProgress: (progress) =>
            options.onProgress({ percent: 0, encodedSeconds: progress.outTimeSeconds, speed: progress.speed }),
        },
      );
    } finally {
      await stopScan();
    }
    // The playlists as ffmpeg ended them (EXT-X-ENDLIST), after every segment they name.
    await files.sendClosed();
    return { bytesWritten: files.bytes, files: files.sentNames(), renditions: await files.measure(last) };
  });
}

/** What has gone out of each rendition's directory, and the sending of what is new. */
class LiveFiles {
  bytes = 0;
  private readonly sent = new Set<string>();
  private readonly playlists = new Map<string, string>();
  private readonly started = new Set<string>();
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly outDir: string,
    private readonly renditions: HlsRendition[],
    private readonly send: (event: LiveEvent) => Promise<void>,
  ) {}

  /** Sends what closed every `intervalMs`; the returned function stops it and waits for a send under way (and throws its failure). */
  scanEvery(intervalMs: number): () => Promise<void> {
    let failure: unknown;
    const timer = setInterval(() => {
      this.sendClosed().catch((error: unknown) => (failure ??= error));
    }, intervalMs);
    return async () => {
      clearInterval(timer);
      await this.sending.catch(() => undefined);
      if (failure) throw failure;
    };
  }

  /** One pass over every rendition: one at a time, so files never overtake each other. */
  sendClosed(): Promise<void> {
    this.sending = this.sending.then(async () => {
      for (const rendition of this.renditions) await this.sendRendition(rendition);
    });
    return this.sending;
  }

  sentNames(): string[] {
    return [...this.sent];
  }

  private async sendRendition({ spec, prefix }: HlsRendition): Promise<void> {
    const dir = join(this.outDir, spec.key);
    // Read before the listing: ffmpeg renames a segment into place before it names it in the
    // playlist, so every segment this playlist names is in the listing that follows.
    const playlist = await readFile(join(dir, hlsPlaylistName), 'utf8').catch(() => undefined);
    const segments = (await readdir(dir)).filter((name) => segmentName.test(name)).sort();
    const fresh = segments.filter((name) => !this.sent.has(prefix + name));
    if (fresh.length > 0 && !this.started.has(spec.key)) {
      const init = await readFile(join(dir, hlsInitName));
      await this.sendFile(prefix + hlsInitName, init);
      const { codecs, width, height } = parseInitSegment(init);
      await this.send({ renditionStarted: { key: spec.key, codecs, width, height } });
      this.started.add(spec.key);
    }
    for (const name of fresh) await this.sendFile(prefix + name, await readFile(join(dir, name)));
    if (playlist !== undefined && playlist !== this.playlists.get(spec.key) && this.started.has(spec.key)) {
      await this.sendFile(prefix + hlsPlaylistName, Buffer.from(playlist, 'utf8'));
      this.playlists.set(spec.key, playlist);
    }
  }

  private async sendFile(name: string, data: Buffer): Promise<void> {
    for (let offset = 0; offset === 0 || offset < data.length; offset += pieceBytes) {
      const piece = data.subarray(offset, offset + pieceBytes);
      await this.send({ file: { name, data: piece, offset, complete: offset + pieceBytes >= data.length } });
    }
    this.sent.add(name);
    this.bytes += data.length;
  }

  /** Each rendition measured from what it sent: its final playlist's segments, the init's CODECS and size. */
  async measure(last: FfmpegProgress | undefined): Promise<RenditionDone[]> {
    const results: RenditionDone[] = [];
    for (const { spec, settings, prefix } of this.renditions) {
      const dir = join(this.outDir, spec.key);
      const playlist = parseMediaPlaylist(this.playlists.get(spec.key) ?? '');
      const segments = [];
      for (const s of playlist.segments) {
        const size = (await readFile(join(dir, s.uri))).length;
        segments.push({ name: s.uri, durationSeconds: s.durationSeconds, sizeBytes: size });
      }
      const bandwidth = measureBandwidth(segments);
      const init = this.sent.has(prefix + hlsInitName)
        ? parseInitSegment(await readFile(join(dir, hlsInitName)))
        : { codecs: '', width: 0, height: 0, audioCodec: undefined };
      results.push({
        key: spec.key,
        segmentCount: segments.length,
        peakBandwidth: bandwidth.peakBitsPerSecond,
        averageBandwidth: bandwidth.averageBitsPerSecond,
        codecs: init.codecs,
        // ffmpeg's progress counts its first output's frames: every rung keeps each published frame.
        frameCount: last?.frame ?? 0,
        width: init.width,
        height: init.height,
        pixelFormat: pixelFormatOfX264[settings.pixelFormat],
        audioFormat: settings.audio && init.audioCodec ? settings.audio.encoding.format : '',
        durationSeconds: bandwidth.durationSeconds,
        bytesWritten: segments.reduce((sum, s) => sum + s.sizeBytes, 0),
        segments,
      });
    }
    return results;
  }
}
