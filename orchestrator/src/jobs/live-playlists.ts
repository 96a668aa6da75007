// A broadcast's media playlists, written here and nowhere else (docs/decisions/live.md): the
// orchestrator receives every file of a rung in order, so it keeps each rung's playlist and writes
// it again as segments and parts arrive (the format: @kino/proto/contract live-playlist.ts). A
// low-latency broadcast's node sends 1 s parts, each starting with a keyframe; a segment is made of
// the parts since the last one, closed before a part that starts with a keyframe once it holds its
// length less half a part (six parts of 1 s, of 0.967 s at 29.97 fps), its bytes the parts' bytes
// one after the other (CMAF fragments back to back are one segment). A standard broadcast's files
// are whole segments. Another node taking over (design step 9) continues the same rung state: its
// first file marked as after a gap (EXT-X-DISCONTINUITY), the numbering going on.
import {
  hlsInitName,
  hlsLivePartName,
  hlsPlaylistName,
  hlsSegmentName,
  renderLivePlaylist,
  type LivePart,
  type LivePlaylist,
} from '@kino/proto/contract';

/** A segment or part as the node described it (LiveFile's last piece). */
export interface LiveMedia {
  durationSeconds: number;
  programDateTimeMs: number;
  independent: boolean;
}

/** Where a rung's files and playlist go: a put of `<key>/<name>`. */
export type PutLiveFile = (name: string, data: Buffer) => Promise<void>;

export interface StoredSegment {
  name: string;
  durationSeconds: number;
  sizeBytes: number;
}

/** One rung's playlist state and the open segment's bytes. */
export class RungPlaylist {
  private readonly playlist: LivePlaylist;
  private readonly sizes: number[] = [];
  /** Every part stored (`<key>/part-….m4s`): the recording does not name them. */
  readonly partNames: string[] = [];
  private openBytes: Buffer[] = [];
  private gapBefore = false;

  constructor(
    private readonly key: string,
    segmentSeconds: number,
    private readonly partSeconds: number | undefined,
    private readonly put: PutLiveFile,
  ) {
    this.playlist = {
      segmentSeconds,
      ...(partSeconds === undefined ? {} : { partSeconds }),
      segments: [],
      ended: false,
    };
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
    this.playlist.open!.nextPartName = nextPartName(name);
    this.openBytes.push(data);
    await this.write();
  }

  /** The input ended: the open segment closes as it is, and the playlist ends (no parts in it from now on). */
  async end(): Promise<void> {
    if (this.playlist.open && this.playlist.open.parts.length > 0) await this.closeSegment();
    delete this.playlist.open;
    this.playlist.ended = true;
    await this.write();
  }

  /** The segments stored, with their sizes (the recording's rows and rates). */
  segments(): StoredSegment[] {
    return this.playlist.segments.map((s, k) => ({
      name: s.name,
      durationSeconds: s.durationSeconds,
      sizeBytes: this.sizes[k]!,
    }));
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
  const digits = /\d+/.exec(name)![0];
  return `part-${String(Number(digits) + 1).padStart(digits.length, '0')}.m4s`;
}
