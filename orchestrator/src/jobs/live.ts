// The live job (issue 56, docs/decisions/live.md): a broadcast's ladder on one node for as long as
// the publisher publishes, its slot leased for all of it. The node reads the ingest's RTMP relay and
// sends each file it closes back on the Encode call's stream; this stores them in the video's HLS
// prefix in the order they come and writes each rung's playlist after each segment or part
// (live-playlists.ts), and once every rung has started and lists a whole segment, hands their CODECS
// and sizes to `onLadderStarted` (the master playlist, the renditions' rows: the video plays live from then on).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { LiveFile__Output, LiveRenditionStarted__Output } from '@kino/proto';
import { contentTypeForHlsFile, measureBandwidth, objectKeys } from '@kino/proto/contract';
import { failureTypes, type EncodeOutcome, type SourceProbe } from '../activity-types.ts';
import { heartbeatIntervalMs } from '../activities/heartbeat.ts';
import type { RenditionPlan } from '../ladder.ts';
import { outcomesOf, renditionSpecOf } from './encode.ts';
import { RungPlaylist, type LiveMedia } from './live-playlists.ts';
import { encodeTimings, runJobOnNode, type NodeJobDeps } from './run-on-node.ts';

export interface LiveEncodeInput {
  videoId: string;
  /** The ingest's relay of the broadcast (LiveBroadcastInput.sourceUrl). */
  sourceUrl: string;
  renditions: RenditionPlan[];
  /** The live probe (no duration). */
  probe: SourceProbe;
  /** Set (latency "low"): the node cuts parts of at most this, and the playlists list them. */
  partSeconds?: number;
  /** The wall-clock time of the broadcast's media time 0 (LiveBroadcastInput.startedAtMs): the files' times count from it. */
  broadcastStartedAtMs?: number;
}

/** What a rung's init segment says: what the master names it by. */
export type StartedRendition = Pick<LiveRenditionStarted__Output, 'key' | 'codecs' | 'width' | 'height'>;

/** The files a broadcast's node may send: a rung's init, and its segments or parts, nothing else. */
const liveFileName = /^([A-Za-z0-9_-]{1,32})\/(init\.mp4|seg-\d{5,}\.m4s|part-\d{5,}\.m4s)$/;

export async function encodeLive(
  deps: NodeJobDeps,
  input: LiveEncodeInput,
  onLadderStarted: (started: StartedRendition[]) => Promise<void>,
): Promise<EncodeOutcome[]> {
  const startedAt = Date.now();
  const keys = input.renditions.map((r) => r.key);
  const what = `live encode of ${keys.join(', ')}`;
  return runJobOnNode(deps, input.videoId, what, { slot: true }, async ({ node, jobId, log, signal }) => {
    const context = Context.current();
    const store = new LiveFileStore(deps, input, onLadderStarted);
    const beat = () => context.heartbeat({ nodeId: node.nodeId, files: store.stored });
    const timer = setInterval(beat, heartbeatIntervalMs);
    const callStartedAt = Date.now();
    try {
      const done = await deps.farm.client(node).encode(
        {
          jobId,
          videoId: input.videoId,
          inputUrl: input.sourceUrl,
          source: input.probe,
          live: {
            renditions: input.renditions.map(renditionSpecOf),
            partSeconds: input.partSeconds ?? 0,
            broadcastStartedAtMs: input.broadcastStartedAtMs ?? 0,
          },
          // Viewers wait for every segment of a broadcast: its ffmpeg runs ahead of background encodes.
          onDemand: true,
        },
        { signal, onProgress: beat, onLive: (event) => store.take(event) },
      );
      await store.end();
      const finishedAt = Date.now();
      log.info({ files: store.stored, seconds: (finishedAt - callStartedAt) / 1000 }, 'broadcast encoded');
      const timings = encodeTimings({
        startedAt,
        callStartedAt,
        firstEventAt: callStartedAt,
        encodedAllAt: finishedAt,
        finishedAt,
      });
      return store.withSegments(outcomesOf(input.renditions, done, node, timings));
    } finally {
      clearInterval(timer);
    }
  });
}

/** A broadcast's files as they arrive, stored whole, each rung's playlist written; the ladder announced once every rung plays. */
class LiveFileStore {
  stored = 0;
  private readonly pieces = new Map<string, Buffer[]>();
  private readonly started = new Map<string, StartedRendition>();
  private readonly rungs = new Map<string, RungPlaylist>();
  private readonly keys: string[];
  private readonly prefix: string;
  private announced = false;

  constructor(
    private readonly deps: Pick<NodeJobDeps, 'storage'>,
    input: LiveEncodeInput,
    private readonly onLadderStarted: (started: StartedRendition[]) => Promise<void>,
  ) {
    this.keys = input.renditions.map((r) => r.key);
    this.prefix = objectKeys.hlsPrefix(input.videoId);
    const put = async (name: string, data: Buffer) => {
      await this.deps.storage.put(`${this.prefix}${name}`, data, contentTypeForHlsFile(name));
      this.stored++;
    };
    for (const r of input.renditions)
      this.rungs.set(r.key, new RungPlaylist(r.key, r.segmentSeconds, input.partSeconds, put));
  }

  async take(event: { file: LiveFile__Output } | { renditionStarted: LiveRenditionStarted__Output }): Promise<void> {
    if ('file' in event) return this.takeFile(event.file);
    const { key, codecs, width, height } = event.renditionStarted;
    if (!this.keys.includes(key)) throw refused(`the node started a rendition it was not asked for: ${key}`);
    this.started.set(key, { key, codecs, width, height });
    await this.announceWhenPlayable();
  }

  /**
   * The ladder announced (the master written) once every rung has started and its playlist lists a
   * whole segment: a low-latency rung's playlist is written from its first part, and hls.js stops
   * for good on a first media playlist with no segment in it (levelEmptyError is fatal until a
   * playlist has loaded), so a master must not lead a player to one.
   */
  private async announceWhenPlayable(): Promise<void> {
    if (this.announced || this.started.size < this.keys.length) return;
    if ([...this.rungs.values()].some((rung) => rung.segments().length === 0)) return;
    this.announced = true;
    await this.onLadderStarted(this.keys.map((k) => this.started.get(k)!));
  }

  /**
   * The input ended: every rung's last segment closes and its playlist ends, naming no part; then
   * the parts go (the segments hold the same bytes). A player still holding a live playlist that
   * names one gets 404 for it and reloads the playlist, which has ended.
   */
  async end(): Promise<void> {
    for (const rung of this.rungs.values()) await rung.end();
    // A broadcast shorter than a segment has its first one only now.
    await this.announceWhenPlayable();
    const parts = [...this.rungs.values()].flatMap((rung) => rung.partNames);
    if (parts.length > 0) await this.deps.storage.deleteMany(parts.map((name) => `${this.prefix}${name}`));
  }

  /** The node's outcomes with the segments as stored here (a low-latency node measured parts). */
  withSegments(outcomes: EncodeOutcome[]): EncodeOutcome[] {
    return outcomes.map((outcome) => {
      const segments = this.rungs.get(outcome.key)!.segments();
      const { peakBitsPerSecond, averageBitsPerSecond } = measureBandwidth(segments);
      return {
        ...outcome,
        segments,
        segmentCount: segments.length,
        ...(peakBitsPerSecond > 0 ? { bandwidth: peakBitsPerSecond, averageBandwidth: averageBitsPerSecond } : {}),
      };
    });
  }

  private async takeFile(file: LiveFile__Output): Promise<void> {
    const { name, data, offset, complete } = file;
    const match = liveFileName.exec(name);
    if (!match || !this.keys.includes(match[1]!)) throw refused(`the node sent a file it may not: ${name}`);
    const pieces = this.pieces.get(name) ?? [];
    const received = pieces.reduce((sum, piece) => sum + piece.length, 0);
    if (Number(offset) !== received) throw refused(`${name}: a piece at ${offset} where ${received} bytes came`);
    pieces.push(data);
    if (!complete) {
      this.pieces.set(name, pieces);
      return;
    }
    this.pieces.delete(name);
    const media: LiveMedia | undefined =
      match[2] === 'init.mp4'
        ? undefined
        : {
            durationSeconds: file.durationSeconds,
            programDateTimeMs: Number(file.programDateTimeMs),
            independent: file.independent,
          };
    const rung = this.rungs.get(match[1]!)!;
    // The node saw the input stop and come back (a publisher's reconnect) before this file.
    if (file.afterGap) rung.markGap();
    await rung.take(match[2]!, Buffer.concat(pieces), media);
    if (media) await this.announceWhenPlayable();
  }
}

/** A node sending what it was not asked for: its answer cannot be trusted, and another try would do the same. */
function refused(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, failureTypes.invalidRequest);
}
