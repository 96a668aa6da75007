// The live job (issue 56, docs/decisions/live.md): a broadcast's ladder on one node for as long as
// the publisher publishes, its slot leased for all of it. The node reads the ingest's RTMP relay and
// sends each file it closes back on the Encode call's stream; this stores them in the video's HLS
// prefix in the order they come and writes each rung's playlist after each segment or part
// (live-playlists.ts), and once every rung has started and lists a whole segment, hands their CODECS
// and sizes to `onLadderStarted` (the master playlist, the renditions' rows: the video plays live from then on).
// An attempt that takes the broadcast over (`resume`: the last one's node was lost, or its worker)
// goes on from what is stored: each rung's playlist and its open segment's parts read back, the lost
// node's open segment closed as it is, the new node's files numbered past every file stored and
// listed after EXT-X-DISCONTINUITY (docs/decisions/live.md "Node takeover").
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Storage } from '@kino/infra';
import type { LiveFile__Output, LiveRenditionStarted__Output } from '@kino/proto';
import {
  contentTypeForHlsFile,
  hlsPlaylistName,
  lastPartsListedSeconds,
  measureBandwidth,
  objectKeys,
  readLivePlaylist,
  renderLivePlaylist,
  withoutParts,
} from '@kino/proto/contract';
import { failureTypes, type EncodeOutcome, type SourceProbe } from '../activity-types.ts';
import { heartbeatIntervalMs } from '../activities/heartbeat.ts';
import type { RenditionPlan } from '../ladder.ts';
import { outcomesOf, renditionSpecOf } from './encode.ts';
import { RungPlaylist, type LiveMedia, type StoredRung } from './live-playlists.ts';
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
  /** A later attempt, taking the broadcast over: each rung goes on from what is stored, after a gap. */
  resume?: boolean;
  /**
   * Set (a low-latency broadcast's workflow since `ended-parts-kept`): the ended playlists keep
   * listing their last segments' parts, and no part is removed here; the workflow has them written
   * without parts later (`endKeptParts`). Unset: the ended playlists list none, and every part goes
   * at once (workflows started before).
   */
  keepEndedParts?: boolean;
}

/**
 * How far past the stored recording's end a node taking over starts its times. Not 0: ffmpeg places
 * its first picture a frame or more after the offset when the relay's GOP begins with sound (seen: a
 * frame, which put the next takeover's first picture on the same time as the last one's, and a
 * reader of the recording as one file dropped it). The timeline jumps by this at the discontinuity,
 * where seconds of the broadcast are missing anyway.
 */
const takeoverTimelineMarginSeconds = 1;

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
  // Read before a slot is held: a few small reads, and the node's first file numbers past them.
  const store = await LiveFileStore.open(deps, input, onLadderStarted);
  const { firstFileNumber, startSeconds } = input.resume
    ? await store.continueAfterGap()
    : { firstFileNumber: 0, startSeconds: 0 };
  return runJobOnNode(deps, input.videoId, what, { slot: true }, async ({ node, jobId, log, signal }) => {
    const context = Context.current();
    if (input.resume) log.info({ firstFileNumber, startSeconds }, 'broadcast taken over: going on from what is stored');
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
            // A node taking over reads the relay from its present: its first file is not the
            // broadcast's media time 0, so it keeps ffmpeg's own times (its start's wall clock).
            broadcastStartedAtMs: input.resume ? 0 : (input.broadcastStartedAtMs ?? 0),
            firstFileNumber,
            startSeconds,
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
      // A file being stored when the call ended (the node lost) lands before the next attempt reads what is stored.
      await store.settled();
    }
  });
}

/**
 * The recording ended from what is stored, no node called: the publisher went while no node held
 * the broadcast (its node lost, and the broadcast over before another took it). Each rung's open
 * segment closes as it is and its playlist ends; `announced` is each rung as the master named it
 * (its rows), which a node would have measured.
 */
export async function endStoredBroadcast(
  deps: Pick<NodeJobDeps, 'storage'>,
  input: LiveEncodeInput,
  announced: Omit<EncodeOutcome, 'segments'>[],
): Promise<EncodeOutcome[]> {
  const store = await LiveFileStore.open(deps, { ...input, resume: true }, async () => {});
  await store.end();
  return store.withSegments(
    input.renditions.map((plan) => {
      const outcome = announced.find((a) => a.key === plan.key);
      if (!outcome) throw refused(`the broadcast ended before its rendition ${plan.key} played`);
      return outcome;
    }),
  );
}

/**
 * The grace of an ended low-latency broadcast's parts is over (`endedPartsKeptSeconds` after its
 * end): each rung's parts that its ended playlist does not list are removed, then its playlist is
 * written without parts, the ordinary on-demand playlist. The parts it listed stay stored with the
 * recording: a player that loaded the ended playlist never reloads it, and asks for those parts
 * whenever it plays those segments (Shaka always, hls.js near the end), a delivery node may hold
 * that playlist in its cache (a ready video's files are immutable to it), and they are a few seconds
 * of media a rung. Again after a retry: a playlist that lists no part has had its parts removed.
 */
export async function endKeptParts(
  { storage }: { storage: Pick<Storage, 'get' | 'list' | 'deleteMany' | 'put'> },
  { videoId, renditions }: { videoId: string; renditions: string[] },
): Promise<void> {
  const prefix = objectKeys.hlsPrefix(videoId);
  for (const key of renditions) {
    const stored = await storage.get(`${prefix}${key}/${hlsPlaylistName}`);
    if (!stored) continue; // the video was deleted meanwhile, or the rung never played
    const playlist = readLivePlaylist(stored.toString('utf8'));
    if (playlist.partSeconds === undefined) continue;
    const listed = new Set(playlist.segments.flatMap((segment) => segment.parts.map((part) => part.name)));
    const parts = await storage.list(`${prefix}${key}/part-`);
    const unlisted = parts.filter((name) => !listed.has(name.slice(name.lastIndexOf('/') + 1)));
    if (unlisted.length > 0) await storage.deleteMany(unlisted);
    await storage.put(
      `${prefix}${key}/${hlsPlaylistName}`,
      Buffer.from(renderLivePlaylist(withoutParts(playlist)), 'utf8'),
      contentTypeForHlsFile(hlsPlaylistName),
    );
  }
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
  /** The rungs continued from what is stored (a takeover). */
  private readonly resumed = new Set<string>();
  private lastTake: Promise<unknown> = Promise.resolve();

  private readonly deps: Pick<NodeJobDeps, 'storage'>;
  private readonly input: LiveEncodeInput;
  private readonly onLadderStarted: (started: StartedRendition[]) => Promise<void>;
  private constructor(
    deps: Pick<NodeJobDeps, 'storage'>,
    input: LiveEncodeInput,
    onLadderStarted: (started: StartedRendition[]) => Promise<void>,
  ) {
    this.deps = deps;
    this.input = input;
    this.onLadderStarted = onLadderStarted;
    this.keys = input.renditions.map((r) => r.key);
    this.prefix = objectKeys.hlsPrefix(input.videoId);
    for (const r of input.renditions)
      this.rungs.set(r.key, new RungPlaylist(r.key, r.segmentSeconds, input.partSeconds, this.put));
  }

  /** The store of a broadcast's files; a takeover's (`resume`) with each rung stored so far read back. */
  static async open(
    deps: Pick<NodeJobDeps, 'storage'>,
    input: LiveEncodeInput,
    onLadderStarted: (started: StartedRendition[]) => Promise<void>,
  ): Promise<LiveFileStore> {
    const store = new LiveFileStore(deps, input, onLadderStarted);
    if (!input.resume) return store;
    await Promise.all(
      input.renditions.map(async ({ key, segmentSeconds }) => {
        const stored = await store.readStoredRung(key);
        if (!stored) return; // nothing of it stored yet: it starts afresh
        store.rungs.set(key, RungPlaylist.resume(key, segmentSeconds, input.partSeconds, store.put, stored));
        store.resumed.add(key);
      }),
    );
    return store;
  }

  /**
   * The new node goes on after a gap: every resumed rung closes the lost node's open segment and
   * names the new node's first file, numbered past every file of every rung stored (the rungs of one
   * ffmpeg number alike, but the lost node may have stored one rung's file and not another's); its
   * first frame's time is past where the longest rung's recording ends, so no rung's times go back.
   */
  async continueAfterGap(): Promise<{ firstFileNumber: number; startSeconds: number }> {
    const rungs = [...this.rungs.values()];
    const firstFileNumber = Math.max(0, ...rungs.map((rung) => rung.nextFileNumber()));
    for (const key of this.resumed) await this.rungs.get(key)!.continueAfterGap(firstFileNumber);
    const recorded = Math.max(0, ...rungs.map((rung) => rung.recordedSeconds()));
    return { firstFileNumber, startSeconds: recorded + takeoverTimelineMarginSeconds };
  }

  /** Resolves once no file is being stored (whether or not storing it worked). */
  async settled(): Promise<void> {
    await this.lastTake;
  }

  take(event: { file: LiveFile__Output } | { renditionStarted: LiveRenditionStarted__Output }): Promise<void> {
    const taking = this.takeEvent(event);
    this.lastTake = taking.catch(() => undefined);
    return taking;
  }

  private readonly put = async (name: string, data: Buffer): Promise<void> => {
    await this.deps.storage.put(`${this.prefix}${name}`, data, contentTypeForHlsFile(name));
    this.stored++;
  };

  /** A rung as stored: its playlist, its open segment's parts, every part stored; undefined when it has no playlist yet. */
  private async readStoredRung(key: string): Promise<StoredRung | undefined> {
    const text = await this.deps.storage.get(`${this.prefix}${key}/${hlsPlaylistName}`);
    if (!text) return undefined;
    const playlist = text.toString('utf8');
    const openPartBytes = await Promise.all(
      (readLivePlaylist(playlist).open?.parts ?? []).map(async ({ name }) => {
        const bytes = await this.deps.storage.get(`${this.prefix}${key}/${name}`);
        if (!bytes) throw new Error(`${key}/${name}: listed in the stored playlist, not stored`);
        return bytes;
      }),
    );
    const partNames = (await this.deps.storage.list(`${this.prefix}${key}/part-`)).map((k) =>
      k.slice(this.prefix.length),
    );
    return { playlist, openPartBytes, partNames };
  }

  private async takeEvent(
    event: { file: LiveFile__Output } | { renditionStarted: LiveRenditionStarted__Output },
  ): Promise<void> {
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
   * The input ended: every rung's last segment closes and its playlist ends. With `keepEndedParts`
   * it still lists its last segments' parts and every part stays stored (a player at the live edge
   * is loading them: hls.js ends a stream by its last listed part being buffered), and it ends only
   * `lastPartsListedSeconds` after listing every part live without a preload hint (the players at
   * the edge load the last parts while the stream is live: `RungPlaylist.listLastParts`). Without,
   * it names no part and the parts go (the segments hold the same bytes).
   */
  async end(): Promise<void> {
    const keepParts = this.input.keepEndedParts === true;
    if (keepParts && this.input.partSeconds !== undefined) {
      for (const rung of this.rungs.values()) await rung.listLastParts();
      const ms = lastPartsListedSeconds(this.input.partSeconds) * 1000;
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
    for (const rung of this.rungs.values()) await rung.end({ keepParts });
    // The segments stored before a takeover: their sizes are the recording's rows and rates.
    for (const key of this.resumed)
      await this.rungs
        .get(key)!
        .sizeSegments(async (name) => (await this.deps.storage.head(`${this.prefix}${name}`))?.size ?? 0);
    // A broadcast shorter than a segment has its first one only now.
    await this.announceWhenPlayable();
    if (keepParts) return;
    const parts = [...this.rungs.values()].flatMap((rung) => rung.partNames);
    if (parts.length > 0) await this.deps.storage.deleteMany(parts.map((name) => `${this.prefix}${name}`));
  }

  /**
   * The node's outcomes with the segments as stored here (a low-latency node measured parts). After a
   * takeover the last node saw only its own frames: the count is the recording's, its length at the
   * rung's rate (every frame keeps its time on the rate's grid).
   */
  withSegments(outcomes: EncodeOutcome[]): EncodeOutcome[] {
    return outcomes.map((outcome) => {
      const segments = this.rungs.get(outcome.key)!.segments();
      const { peakBitsPerSecond, averageBitsPerSecond, durationSeconds } = measureBandwidth(segments);
      const frameRate = this.input.renditions.find((r) => r.key === outcome.key)!.frameRate;
      return {
        ...outcome,
        segments,
        segmentCount: segments.length,
        ...(this.resumed.size > 0 ? { frameCount: Math.round(durationSeconds * frameRate) } : {}),
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
            last: file.last,
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
