// A broadcast's media playlists, written here and nowhere else (docs/decisions/live.md): the
// orchestrator receives every file of a rung in order, so it keeps each rung's playlist and writes
// it again as segments and parts arrive (the format: @kino/proto/contract live-playlist.ts). A
// low-latency broadcast's node sends 1 s parts, each starting with a keyframe; a segment is made of
// the parts since the last one, closed before a part that starts with a keyframe once it holds its
// length less half a part (six parts of 1 s, of 0.967 s at 29.97 fps), its bytes the parts' bytes
// one after the other (CMAF fragments back to back are one segment). A standard broadcast's files
// are whole segments. A writer taking a broadcast over (another node after one was lost, another
// orchestrator worker after a restart) continues each rung from what is stored (`RungPlaylist.resume`:
// the stored playlist and the open segment's stored parts), closes the segment the lost node left
// open as it is, and starts the next after EXT-X-DISCONTINUITY, the numbering going on.
import {
  hlsInitName,
  hlsLivePartFileName,
  hlsLivePartName,
  hlsLivePartNumber,
  hlsPlaylistName,
  hlsSegmentName,
  readLivePlaylist,
  renderLivePlaylist,
  withoutParts,
  type LivePart,
  type LivePlaylist,
} from '@kino/proto/contract';

/** A segment or part as the node described it (LiveFile's last piece). */
export interface LiveMedia {
  durationSeconds: number;
  programDateTimeMs: number;
  independent: boolean;
  /** The rung's last file (the node read the end of ffmpeg's playlist with it): no part follows. */
  last?: boolean;
}

/** Where a rung's files and playlist go: a put of `<key>/<name>`. */
export type PutLiveFile = (name: string, data: Buffer) => Promise<void>;

/** A rung as stored, for a writer taking it over: its playlist, and what it does not name. */
export interface StoredRung {
  /** The rung's stored playlist. */
  playlist: string;
  /** The bytes of the open segment's parts, in its order (read back from their stored files). */
  openPartBytes: Buffer[];
  /** Every part stored (`<key>/part-….m4s`), listed or not: what the ended playlist leaves to remove. */
  partNames: string[];
}

export interface StoredSegment {
  name: string;
  durationSeconds: number;
  sizeBytes: number;
}

/** One rung's playlist state and the open segment's bytes. */
export class RungPlaylist {
  private playlist: LivePlaylist;
  /** Each segment's size; unknown (a resumed rung's segments) until sizeSegments. */
  private sizes: (number | undefined)[] = [];
  /** Every part stored (`<key>/part-….m4s`): the recording does not name them. */
  partNames: string[] = [];
  private openBytes: Buffer[] = [];
  private gapBefore = false;

  private readonly key: string;
  private readonly partSeconds: number | undefined;
  private readonly put: PutLiveFile;
  constructor(key: string, segmentSeconds: number, partSeconds: number | undefined, put: PutLiveFile) {
    this.key = key;
    this.partSeconds = partSeconds;
    this.put = put;
    this.playlist = {
      segmentSeconds,
      ...(partSeconds === undefined ? {} : { partSeconds }),
      segments: [],
      ended: false,
    };
  }

  /**
   * A rung continued from what is stored (the inverse of what `take` and `write` store): its
   * segments, its open segment with the bytes of its parts, its numbering; the stored segments'
   * sizes are read when the recording needs them (sizeSegments).
   */
  static resume(
    key: string,
    segmentSeconds: number,
    partSeconds: number | undefined,
    put: PutLiveFile,
    stored: StoredRung,
  ): RungPlaylist {
    const rung = new RungPlaylist(key, segmentSeconds, partSeconds, put);
    const read = readLivePlaylist(stored.playlist);
    rung.playlist = {
      ...rung.playlist,
      segments: read.segments,
      ended: read.ended,
      ...(partSeconds !== undefined && read.open ? { open: read.open } : {}),
    };
    const openParts = rung.playlist.open?.parts.length ?? 0;
    if (stored.openPartBytes.length !== openParts)
      throw new Error(`${key}: ${stored.openPartBytes.length} stored parts for the ${openParts} its playlist lists`);
    rung.openBytes = [...stored.openPartBytes];
    rung.sizes = read.segments.map(() => undefined);
    rung.partNames = [...stored.partNames];
    return rung;
  }

  /**
   * The number the next file of this rung must have so that no stored name is taken: its next
   * segment's (standard), or past its preload hint and every part stored (low latency).
   */
  nextFileNumber(): number {
    if (this.partSeconds === undefined) return this.playlist.segments.length;
    const hinted = hlsLivePartNumber(this.playlist.open?.nextPartName ?? '') ?? 0;
    const afterStored = this.partNames.map((name) => (hlsLivePartNumber(name) ?? -1) + 1);
    return Math.max(hinted, ...afterStored);
  }

  /**
   * Another writer goes on from here after a gap (its node lost): the segment the lost node left
   * open closes as it is (a short segment, every part it had), the preload hint names the next
   * node's first part, and that part starts a segment after EXT-X-DISCONTINUITY.
   */
  async continueAfterGap(firstFileNumber: number): Promise<void> {
    if (this.playlist.ended) return;
    if (this.playlist.open && this.playlist.open.parts.length > 0) await this.closeSegment();
    // Listed at once: a player holding the preload hint learns of the discontinuity before the part.
    if (this.playlist.open)
      this.playlist.open = {
        ...this.playlist.open,
        discontinuity: true,
        nextPartName: hlsLivePartFileName(firstFileNumber),
      };
    this.markGap();
    await this.write();
  }

  /** The next file is after a gap (a reconnect, a node taking over): EXT-X-DISCONTINUITY before it. */
  markGap(): void {
    this.gapBefore = true;
  }

  /** Stores a file of the rung (init, segment or part) and, for a segment or part, writes the playlist. */
  async take(name: string, data: Buffer, media: LiveMedia | undefined): Promise<void> {
    if (name === hlsInitName || !media) return this.put(`${this.key}/${name}`, data);
    if (this.partSeconds === undefined) {
      await this.put(`${this.key}/${name}`, data);
      this.playlist.segments.push({
        name,
        durationSeconds: media.durationSeconds,
        programDateTime: new Date(media.programDateTimeMs).toISOString(),
        discontinuity: this.takeGap(),
        parts: [],
      });
      this.sizes.push(data.length);
      return this.write();
    }
    if (!hlsLivePartName.test(name)) throw new Error(`a low-latency broadcast sends parts, not ${name}`);
    const part: LivePart = { name, durationSeconds: media.durationSeconds, independent: media.independent };
    const open = this.playlist.open;
    const gap = this.takeGap();
    // A gap starts a segment: a segment holds one continuous stretch.
    if (open && open.parts.length > 0 && (gap || (media.independent && this.openSeconds() >= this.closeAfter())))
      await this.closeSegment();
    await this.put(`${this.key}/${name}`, data);
    this.partNames.push(`${this.key}/${name}`);
    const current = this.playlist.open;
    if (current && current.parts.length > 0) current.parts.push(part);
    else
      this.playlist.open = {
        programDateTime: new Date(media.programDateTimeMs).toISOString(),
        discontinuity: gap,
        parts: [part],
        nextPartName: '',
      };
    // No hint after the last part: a player fetching it would wait for a part that never comes.
    this.playlist.open!.nextPartName = media.last ? '' : nextPartName(name);
    this.openBytes.push(data);
    await this.write();
  }

  /**
   * The input ended, the playlist not yet (a low-latency rung, a part target before `end`): the
   * playlist, still live, lists every part and hints none. A player at the live edge learns its last
   * parts from it and loads them while the stream is live: hls.js 1.7 loads no more of a segment it
   * has begun once its playlist has ended, and stopped for good where the last part starts when the
   * ended playlist was the first to list it (docs/decisions/live.md, "The end of a broadcast"). The
   * open segment stays open: closed in a live delta update, hls.js placed it 2.6 s early. A node
   * marks its last part (`LiveMedia.last`), whose playlist already hints none; from an older node, a
   * player waiting for the hinted part (Shaka) is answered 404 once the hint is gone, which Shaka
   * reports as a critical error (fatal once its playlist has ended).
   */
  async listLastParts(): Promise<void> {
    if (this.playlist.open) this.playlist.open.nextPartName = '';
    await this.write();
  }

  /**
   * The input ended: the open segment closes as it is (if `listLastParts` has not closed it), and
   * the playlist ends. With `keepParts` it still lists its last segments' parts, as it did live (a
   * player at the edge is loading them; the workflow writes it without them later: `withoutParts`);
   * without, it lists none from now on (the workflows started before that, which remove the parts
   * at once).
   */
  async end({ keepParts }: { keepParts: boolean }): Promise<void> {
    if (this.playlist.open && this.playlist.open.parts.length > 0) await this.closeSegment();
    delete this.playlist.open;
    if (!keepParts) this.playlist = withoutParts(this.playlist);
    this.playlist.ended = true;
    await this.write();
  }

  /** The media seconds the rung's segments hold: where its recording ends (after continueAfterGap, all it stored). */
  recordedSeconds(): number {
    return this.playlist.segments.reduce((sum, s) => sum + s.durationSeconds, 0);
  }

  /** The segments stored, with their sizes (the recording's rows and rates; a resumed rung's after sizeSegments). */
  segments(): StoredSegment[] {
    return this.playlist.segments.map((s, k) => ({
      name: s.name,
      durationSeconds: s.durationSeconds,
      sizeBytes: this.sizes[k] ?? 0,
    }));
  }

  /** The sizes of the segments stored before a takeover, read from storage (`sizeOf` a `<key>/<name>`). */
  async sizeSegments(sizeOf: (name: string) => Promise<number>): Promise<void> {
    for (const [k, segment] of this.playlist.segments.entries())
      this.sizes[k] ??= await sizeOf(`${this.key}/${segment.name}`);
  }

  private takeGap(): boolean {
    const gap = this.gapBefore;
    this.gapBefore = false;
    return gap;
  }

  /** A segment may close once it holds its length less half a part: parts a frame short still make six. */
  private closeAfter(): number {
    return this.playlist.segmentSeconds - this.partSeconds! / 2;
  }

  private openSeconds(): number {
    return (this.playlist.open?.parts ?? []).reduce((sum, p) => sum + p.durationSeconds, 0);
  }

  private async closeSegment(): Promise<void> {
    const open = this.playlist.open!;
    const name = hlsSegmentName(this.playlist.segments.length);
    const data = Buffer.concat(this.openBytes);
    await this.put(`${this.key}/${name}`, data);
    this.playlist.segments.push({
      name,
      // Rounded as ffmpeg writes EXTINF: sums of parts carry float noise.
      durationSeconds: Math.round(this.openSeconds() * 1e6) / 1e6,
      programDateTime: open.programDateTime,
      discontinuity: open.discontinuity,
      parts: open.parts,
    });
    this.sizes.push(data.length);
    this.openBytes = [];
    this.playlist.open = { programDateTime: '', discontinuity: false, parts: [], nextPartName: open.nextPartName };
  }

  private write(): Promise<void> {
    return this.put(`${this.key}/${hlsPlaylistName}`, Buffer.from(renderLivePlaylist(this.playlist), 'utf8'));
  }
}

/** The name ffmpeg gives the part after `name` (`part-00012.m4s` → `part-00013.m4s`). */
function nextPartName(name: string): string {
  return hlsLivePartFileName(hlsLivePartNumber(name)! + 1);
}
