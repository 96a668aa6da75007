// Live: a broadcast's whole ladder from one ffmpeg reading the ingest's RTMP relay for as long as the
// publisher publishes (docs/decisions/live.md). How many segments it makes is not known in advance,
// so nothing is presigned: each file ffmpeg closes goes back on the Encode call's own stream
// (EncodeEvent.file) and the orchestrator stores it and writes the playlists. With `part_seconds`
// (latency "low") ffmpeg's files are 1 s parts, which the orchestrator groups into segments. A
// rung's init goes before its first file; each file goes once ffmpeg's playlist names it (it is then
// closed), with its duration, wall-clock time and whether a keyframe starts it. The input's end
// (ingest closes the relay) ends ffmpeg; what it closed last goes, then `done`.
import { watch } from 'node:fs';
import { readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EncodeDone, EncodeRequest__Output, ProbeResult__Output, RenditionDone } from '@kino/proto';
import { hlsInitName, hlsPlaylistName, measureBandwidth, pixelFormatOfX264 } from '@kino/proto/contract';
import {
  fragmentStartsWithKeyframe,
  hlsLadderArgs,
  parseInitSegment,
  parseMediaPlaylist,
  runFfmpeg,
  type FfmpegProgress,
} from '@kino/ffmpeg';
import type { EncodeJobOptions, LiveEvent } from '../encode-options.ts';
import { InvalidRequestError } from '../errors.ts';
import { planHlsEncode, type HlsRendition } from '../hls-plan.ts';
import { withJobDir } from '../job-dir.ts';
import { LiveInputClock } from '../live-input-clock.ts';

/**
 * How often the renditions' playlists are read for closed files besides when ffmpeg renames one
 * into place (fs.watch): a missed event then costs a file this much, never the file.
 */
const scanIntervalMs = 1000;
/** A file travels in pieces of at most this (gRPC's default message limit is 4 MiB). */
const pieceBytes = 1024 * 1024;

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
    const startedAtMs = live.broadcastStartedAtMs > 0 ? live.broadcastStartedAtMs : undefined;
    const files = new LiveFiles(outDir, plan.renditions, sendLive, startedAtMs);
    const stopScan = files.scanEvery(scanIntervalMs);
    let last: FfmpegProgress | undefined;
    try {
      last = await runFfmpeg(
        hlsLadderArgs({
          input: request.inputUrl,
          outputs: plan.renditions.map((r) => ({ settings: r.settings, dir: r.spec.key })),
          threads: options.threads,
          live: true,
          ...(live.partSeconds > 0 ? { livePartSeconds: live.partSeconds } : {}),
          // A broadcast taken over: its files numbered past the lost node's, its times after theirs.
          liveFirstFile: live.firstFileNumber,
          liveStartSeconds: live.startSeconds,
        }),
        {
          program: plan.program,
          cwd: outDir,
          signal: options.signal,
          logger,
          priority: options.priority,
          onProgress: (progress) => {
            files.noteProgress(Date.now());
            options.onProgress({ percent: 0, encodedSeconds: progress.outTimeSeconds, speed: progress.speed });
          },
        },
      );
    } finally {
      await stopScan();
    }
    // What ffmpeg closed at the end.
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
  /** Each rung's files in wall-clock time, and the input's gaps (a publisher's reconnect). */
  private readonly clocks = new Map<string, LiveInputClock>();
  /** When ffmpeg last reported progress, and its silences (a blocked input: a publisher's gap) since. */
  private lastProgressAt: number | undefined;
  private silences: { endedAt: number; ms: number }[] = [];
  /** When each rung's last file was placed: the silences since are the ones before its next. */
  private readonly placedAt = new Map<string, number>();
  private sending: Promise<void> = Promise.resolve();

  private readonly outDir: string;
  private readonly renditions: HlsRendition[];
  private readonly send: (event: LiveEvent) => Promise<void>;
  private readonly startedAtMs: number | undefined;
  constructor(
    outDir: string,
    renditions: HlsRendition[],
    send: (event: LiveEvent) => Promise<void>,
    /** The wall-clock time of the broadcast's media time 0, when known (LiveEncode.broadcast_started_at_ms). */
    startedAtMs: number | undefined,
  ) {
    this.outDir = outDir;
    this.renditions = renditions;
    this.send = send;
    this.startedAtMs = startedAtMs;
  }

  /**
   * Sends what closed as soon as ffmpeg renames a rung's playlist into place (it names a file there
   * once the file is closed), and every `intervalMs` besides; the returned function stops it and
   * waits for a send under way (and throws its failure). Watching rather than a quick poll: a
   * quarter-second poll cost a part 125 ms on average (docs/decisions/live.md, the latency budget).
   */
  scanEvery(intervalMs: number): () => Promise<void> {
    let failure: unknown;
    const scan = () => {
      this.sendClosed().catch((error: unknown) => (failure ??= error));
    };
    const timer = setInterval(scan, intervalMs);
    const watchers = this.renditions.map(({ spec }) => {
      const watcher = watch(join(this.outDir, spec.key), (_event, name) => {
        if (name === hlsPlaylistName) scan();
      });
      // The poll still finds every file.
      return watcher.on('error', () => watcher.close());
    });
    return async () => {
      clearInterval(timer);
      for (const watcher of watchers) watcher.close();
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

  /** A progress line from ffmpeg at `nowMs`: a silence before it of a second or more is kept. */
  noteProgress(nowMs: number): void {
    const silentMs = this.lastProgressAt === undefined ? 0 : nowMs - this.lastProgressAt;
    this.lastProgressAt = nowMs;
    if (silentMs < 1000) return;
    this.silences = [...this.silences.filter((s) => nowMs - s.endedAt < 60_000), { endedAt: nowMs, ms: silentMs }];
  }

  /** The longest ffmpeg has been silent since `sinceMs` (the one going on included). */
  private silentSinceMs(sinceMs: number, nowMs: number): number {
    const ongoing = this.lastProgressAt === undefined ? 0 : nowMs - this.lastProgressAt;
    return Math.max(ongoing, ...this.silences.filter((s) => s.endedAt > sinceMs).map((s) => s.ms));
  }

  sentNames(): string[] {
    return [...this.sent];
  }

  private async sendRendition({ spec, prefix }: HlsRendition): Promise<void> {
    const dir = join(this.outDir, spec.key);
    // ffmpeg names a file in its playlist once it has renamed it into place, closed.
    const text = await readFile(join(dir, hlsPlaylistName), 'utf8').catch(() => undefined);
    if (text === undefined || text === this.playlists.get(spec.key)) return;
    const playlist = parseMediaPlaylist(text);
    const fresh = playlist.segments.filter((s) => !this.sent.has(prefix + s.uri));
    if (fresh.length > 0 && !this.started.has(spec.key)) {
      const init = await readFile(join(dir, hlsInitName));
      await this.sendFile(prefix + hlsInitName, init);
      const { codecs, width, height } = parseInitSegment(init);
      await this.send({ renditionStarted: { key: spec.key, codecs, width, height } });
      this.started.add(spec.key);
    }
    const clock = this.clocks.get(spec.key) ?? new LiveInputClock(this.startedAtMs);
    this.clocks.set(spec.key, clock);
    for (const [i, entry] of fresh.entries()) {
      const data = await readFile(join(dir, entry.uri));
      const time = entry.programDateTime ? Date.parse(entry.programDateTime) : Date.now();
      const now = Date.now();
      const silent = this.silentSinceMs(this.placedAt.get(spec.key) ?? 0, now);
      const placed = clock.place(time, entry.durationSeconds, now, silent);
      this.placedAt.set(spec.key, now);
      await this.sendFile(prefix + entry.uri, data, {
        durationSeconds: entry.durationSeconds,
        programDateTimeMs: placed.programDateTimeMs,
        independent: fragmentStartsWithKeyframe(data),
        afterGap: placed.afterGap,
        // ffmpeg lists its last file in the playlist it ends (its trailer): the input is over.
        last: playlist.endList && i === fresh.length - 1,
      });
    }
    this.playlists.set(spec.key, text);
  }

  /** A file in pieces; a segment's or part's description goes on its last piece. */
  private async sendFile(
    name: string,
    data: Buffer,
    media?: {
      durationSeconds: number;
      programDateTimeMs: number;
      independent: boolean;
      afterGap: boolean;
      last: boolean;
    },
  ): Promise<void> {
    for (let offset = 0; offset === 0 || offset < data.length; offset += pieceBytes) {
      const piece = data.subarray(offset, offset + pieceBytes);
      const complete = offset + pieceBytes >= data.length;
      await this.send({ file: { name, data: piece, offset, complete, ...(complete ? media : {}) } });
    }
    this.sent.add(name);
    this.bytes += data.length;
  }

  /**
   * Each rendition measured from what it sent: its final playlist's files, the init's CODECS and
   * size. A low-latency broadcast's files are parts: the orchestrator, which made its segments of
   * them, puts its own segments in their place.
   */
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
