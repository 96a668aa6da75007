// A broadcast's media playlist (issue 56, docs/decisions/live.md): written by the orchestrator, the
// one writer, as a broadcast's files arrive; read by delivery to answer blocking reloads
// (`_HLS_msn`/`_HLS_part`) and delta updates (`_HLS_skip`). One module for the format, so writer
// and reader cannot drift. `latency: "low"` adds low-latency HLS (RFC 8216bis): each segment's parts
// (`EXT-X-PART`) while the broadcast runs, a preload hint of the next part, the server control and
// part target. `standard` lists 6 s segments only. Both an EVENT playlist with
// EXT-X-PROGRAM-DATE-TIME on every segment, ended (EXT-X-ENDLIST) when the broadcast ends: a
// low-latency one still listing its last segments' parts, for the players at the live edge that
// are loading them, until `endedPartsKeptSeconds` later it is written once more without parts
// (`withoutParts`), the ordinary on-demand playlist (docs/decisions/live.md, "The end of a broadcast").

/** ffmpeg's `-hls_segment_filename` pattern of a low-latency broadcast's parts (`part-00012.m4s`). */
export const hlsLivePartPattern = 'part-%05d.m4s';
/** The longest part of a low-latency broadcast (PART-TARGET). */
export const hlsLivePartSeconds = 1;
/** A part's name: numbered through the whole broadcast, not per segment. */
export const hlsLivePartName = /^part-\d{5,}\.m4s$/;

/** The name ffmpeg gives part `n` (hlsLivePartPattern). */
export function hlsLivePartFileName(n: number): string {
  return `part-${String(n).padStart(5, '0')}.m4s`;
}

/** The number in a part's name (`part-00012.m4s`, or a path ending so: 12); undefined for another name. */
export function hlsLivePartNumber(name: string): number | undefined {
  const digits = /(?:^|\/)part-(\d{5,})\.m4s$/.exec(name)?.[1];
  return digits === undefined ? undefined : Number(digits);
}
/** Parts are listed for this many segments before the one being made (RFC 8216bis: at least three target durations back). */
export const hlsLivePartSegmentsListed = 3;

/**
 * How long an ended low-latency playlist keeps listing its parts: three target durations, the span
 * RFC 8216bis keeps a part listed from the end of a playlist. A player at the live edge reloads
 * within a part target, so by then every player still loading the broadcast's last parts has the
 * ended playlist and the parts it lists.
 */
export function endedPartsKeptSeconds(targetDuration: number): number {
  return targetDuration * 3;
}

/**
 * How long a low-latency playlist lists its last parts, still live and with no preload hint, before
 * it ends: a part target, in which a player at the live edge, answered at once on its blocking
 * reload, starts loading the part or two it has not. hls.js 1.7 loads no more of a segment it has
 * begun once the playlist has ended, so one that learnt of the last part from the ended playlist
 * stopped where that part starts (docs/decisions/live.md, "The end of a broadcast"). A player
 * holding back PART-HOLD-BACK (three part targets) still has the end before it plays out.
 */
export function lastPartsListedSeconds(partTarget: number): number {
  return partTarget;
}

export interface LivePart {
  name: string;
  durationSeconds: number;
  /** Starts with a keyframe (`INDEPENDENT=YES`): a player may start from it. */
  independent: boolean;
}

export interface LiveSegment {
  name: string;
  durationSeconds: number;
  /** Its first frame's wall-clock time, ISO 8601 with milliseconds. */
  programDateTime: string;
  /** A gap before it (a publisher's reconnect, another node taking over): EXT-X-DISCONTINUITY. */
  discontinuity: boolean;
  /** Its parts, in order (low latency); none in `standard`. */
  parts: LivePart[];
}

export interface LivePlaylist {
  /** EXT-X-TARGETDURATION's floor: the segment length asked for. */
  segmentSeconds: number;
  /** Set: low latency, parts of at most this, listed for the last segments (also once ended, until `withoutParts`). */
  partSeconds?: number;
  /** Complete segments, in order, from media sequence 0. */
  segments: LiveSegment[];
  /**
   * The segment being made: its parts so far (low latency), and the name its next part will have
   * (the preload hint); '' once the input has ended and no part will come.
   */
  open?: { programDateTime: string; discontinuity: boolean; parts: LivePart[]; nextPartName: string };
  ended: boolean;
}

const seconds = (value: number) => value.toFixed(6);

/** How far back a delta update may skip (RFC 8216bis: at least six target durations). */
export function canSkipUntilSeconds(targetDuration: number): number {
  return targetDuration * 6;
}

/** The playlist's EXT-X-TARGETDURATION: every EXTINF rounded is at most it. */
function targetDurationOf(playlist: LivePlaylist): number {
  return Math.max(playlist.segmentSeconds, ...playlist.segments.map((s) => Math.round(s.durationSeconds)));
}

export function renderLivePlaylist(playlist: LivePlaylist): string {
  const low = playlist.partSeconds !== undefined;
  const target = targetDurationOf(playlist);
  const lines = [
    '#EXTM3U',
    // 9: EXT-X-SKIP (delta updates); 6 is all a standard EVENT playlist of fMP4 needs.
    `#EXT-X-VERSION:${low ? 9 : 6}`,
    `#EXT-X-TARGETDURATION:${target}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:EVENT',
    '#EXT-X-INDEPENDENT-SEGMENTS',
  ];
  if (low) {
    // PART-HOLD-BACK: three part targets, RFC 8216bis's least.
    const partTarget = playlist.partSeconds!;
    lines.push(
      `#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=${canSkipUntilSeconds(target).toFixed(1)},PART-HOLD-BACK=${(3 * partTarget).toFixed(3)}`,
      `#EXT-X-PART-INF:PART-TARGET=${partTarget.toFixed(3)}`,
    );
  }
  lines.push('#EXT-X-MAP:URI="init.mp4"');
  const partsFrom = playlist.segments.length - hlsLivePartSegmentsListed;
  playlist.segments.forEach((segment, k) => {
    if (segment.discontinuity) lines.push('#EXT-X-DISCONTINUITY');
    lines.push(`#EXT-X-PROGRAM-DATE-TIME:${segment.programDateTime}`);
    if (low && k >= partsFrom) lines.push(...segment.parts.map(partLine));
    lines.push(`#EXTINF:${seconds(segment.durationSeconds)},`, segment.name);
  });
  const { open } = playlist;
  if (low && open) {
    if (open.discontinuity) lines.push('#EXT-X-DISCONTINUITY');
    if (open.parts.length > 0) lines.push(`#EXT-X-PROGRAM-DATE-TIME:${open.programDateTime}`);
    lines.push(...open.parts.map(partLine));
    if (open.nextPartName) lines.push(`#EXT-X-PRELOAD-HINT:TYPE=PART,URI="${open.nextPartName}"`);
  }
  if (playlist.ended) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/**
 * The playlist as an on-demand one: no part, no server control, no preload hint (what an ended
 * low-latency playlist becomes once `endedPartsKeptSeconds` have passed, and a standard one is).
 */
export function withoutParts(playlist: LivePlaylist): LivePlaylist {
  const { partSeconds: _listed, open: _open, ...rest } = playlist;
  return rest;
}

function partLine(part: LivePart): string {
  return `#EXT-X-PART:DURATION=${seconds(part.durationSeconds)},URI="${part.name}"${part.independent ? ',INDEPENDENT=YES' : ''}`;
}

/**
 * A stored live playlist read back (the inverse of renderLivePlaylist): what a writer taking the
 * broadcast over continues from (a node lost, an orchestrator worker restarted; live.md "Takeover").
 * Rendering what it reads gives the same text. What the text does not hold stays unknown: parts of
 * segments older than the last `hlsLivePartSegmentsListed` (read as none), and the segment length
 * asked for (read as EXT-X-TARGETDURATION, which is at least it): the writer has both.
 */
export function readLivePlaylist(text: string): LivePlaylist {
  const playlist: LivePlaylist = { segmentSeconds: 0, segments: [], ended: false };
  let pending = { programDateTime: '', discontinuity: false, parts: [] as LivePart[], durationSeconds: 0 };
  for (const line of text.split('\n')) {
    if (line.startsWith('#EXT-X-TARGETDURATION:')) playlist.segmentSeconds = Number(line.slice(22));
    else if (line.startsWith('#EXT-X-PART-INF:')) playlist.partSeconds = Number(attribute(line, 'PART-TARGET'));
    else if (line === '#EXT-X-DISCONTINUITY') pending.discontinuity = true;
    else if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) pending.programDateTime = line.slice(25);
    else if (line.startsWith('#EXT-X-PART:'))
      pending.parts.push({
        name: attribute(line, 'URI'),
        durationSeconds: Number(attribute(line, 'DURATION')),
        independent: attribute(line, 'INDEPENDENT') === 'YES',
      });
    else if (line.startsWith('#EXTINF:')) pending.durationSeconds = Number.parseFloat(line.slice(8));
    else if (line.startsWith('#EXT-X-PRELOAD-HINT:')) {
      const { programDateTime, discontinuity, parts } = pending;
      playlist.open = { programDateTime, discontinuity, parts, nextPartName: attribute(line, 'URI') };
    } else if (line === '#EXT-X-ENDLIST') playlist.ended = true;
    else if (line !== '' && !line.startsWith('#')) {
      const { programDateTime, discontinuity, parts, durationSeconds } = pending;
      playlist.segments.push({ name: line, durationSeconds, programDateTime, discontinuity, parts });
      pending = { programDateTime: '', discontinuity: false, parts: [], durationSeconds: 0 };
    }
  }
  // Parts after the last segment with no hint: the input has ended, the segment not closed yet.
  if (!playlist.open && pending.parts.length > 0) {
    const { programDateTime, discontinuity, parts } = pending;
    playlist.open = { programDateTime, discontinuity, parts, nextPartName: '' };
  }
  return playlist;
}

/** An attribute of a tag's list (`URI="part-00012.m4s"`, `DURATION=1.000000`), quotes taken off; '' when absent. */
function attribute(line: string, name: string): string {
  const match = new RegExp(`[:,]${name}=("[^"]*"|[^,]*)`).exec(line);
  return match ? match[1]!.replace(/^"|"$/g, '') : '';
}

/** What a reader of a stored live playlist needs to answer a blocking reload or a delta update. */
export interface LivePlaylistPosition {
  targetDuration: number;
  /** Complete segments (media sequence 0 on). */
  segments: number;
  /** Parts listed of the segment being made (media sequence `segments`). */
  openParts: number;
  ended: boolean;
  /** The server control's CAN-SKIP-UNTIL; absent: no delta updates, no blocking reloads. */
  canSkipUntil?: number;
}

export function readLivePlaylistPosition(text: string): LivePlaylistPosition {
  const position: LivePlaylistPosition = { targetDuration: 0, segments: 0, openParts: 0, ended: false };
  for (const line of text.split('\n')) {
    if (line.startsWith('#EXT-X-TARGETDURATION:')) position.targetDuration = Number(line.slice(22));
    else if (line.startsWith('#EXT-X-SERVER-CONTROL:')) {
      const until = /CAN-SKIP-UNTIL=([\d.]+)/.exec(line)?.[1];
      if (until) position.canSkipUntil = Number(until);
    } else if (line.startsWith('#EXT-X-PART:')) position.openParts++;
    else if (line === '#EXT-X-ENDLIST') position.ended = true;
    else if (line !== '' && !line.startsWith('#')) {
      position.segments++;
      position.openParts = 0;
    }
  }
  return position;
}

/** Where a listed part stands: the segment it is part of (media sequence), and whether it is that segment's first part. */
export interface LivePartPlace {
  segment: number;
  first: boolean;
}

/**
 * Where the part named `name` stands in a live media playlist, or undefined when the playlist does
 * not list it (not stored yet, listed no more, or the playlist ended and written without parts). Delivery
 * counts a segment fetched as parts once, by its first part (docs/analytics.md).
 */
export function findLivePart(text: string, name: string): LivePartPlace | undefined {
  let segment = 0;
  let first = true;
  const uri = `URI="${name}"`;
  for (const line of text.split('\n')) {
    if (line.startsWith('#EXT-X-PART:')) {
      if (line.includes(uri)) return { segment, first };
      first = false;
    } else if (line !== '' && !line.startsWith('#')) {
      segment++;
      first = true;
    }
  }
  return undefined;
}

/**
 * Whether the playlist lists part `name` as made (an `EXT-X-PART`). The preload hint names the
 * next part too, before it exists: a reader waiting for a part must not take the hint for it.
 */
export function listsPart(text: string, name: string): boolean {
  return findLivePart(text, name) !== undefined;
}

/**
 * Whether a part the playlist does not list may still come: it hints a next part. Once it hints
 * none (the input has ended: its last parts listed live, then the playlist ended), none will, and a
 * player waiting for the hinted part is answered at once rather than when the stream has ended.
 */
export function awaitsNextPart(text: string): boolean {
  return text.includes('#EXT-X-PRELOAD-HINT:');
}

/** A blocking reload's ask: the playlist once it holds segment `msn` (its part `part`, when given). */
export interface BlockingReload {
  msn: number;
  part?: number;
}

/**
 * Whether the playlist answers the reload: it has ended, holds segment `msn` whole (a part past
 * that segment's last is the next segment's, "or later"), or holds part `part` of the segment being
 * made.
 */
export function answersReload(position: LivePlaylistPosition, { msn, part }: BlockingReload): boolean {
  if (position.ended || msn < position.segments) return true;
  return part !== undefined && msn === position.segments && part < position.openParts;
}

/**
 * A reload asking too far ahead, which a server answers 400 at once (RFC 8216bis 6.2.5.2): a
 * segment past the one after the segment being made, or a part more than three past the last.
 */
export function reloadTooFarAhead(position: LivePlaylistPosition, { msn, part }: BlockingReload): boolean {
  if (position.ended) return false;
  if (msn > position.segments + 1) return true;
  return part !== undefined && msn === position.segments && part > position.openParts - 1 + 3;
}

/**
 * The delta update of a live playlist (`_HLS_skip=YES`, RFC 8216bis 6.2.5.1): its oldest segments,
 * those starting more than CAN-SKIP-UNTIL before its end, replaced by `EXT-X-SKIP`. A playlist
 * whose server control allows no skipping is answered whole.
 */
export function deltaLivePlaylist(text: string): string {
  const position = readLivePlaylistPosition(text);
  if (position.canSkipUntil === undefined || position.ended) return text;
  const lines = text.split('\n');
  const firstSegmentLine = lines.findIndex((line) => line.startsWith('#EXT-X-MAP:')) + 1;
  const blocks: { start: number; end: number; duration: number }[] = [];
  let start = firstSegmentLine;
  let duration = 0;
  for (let i = firstSegmentLine; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice(8));
    else if (line !== '' && !line.startsWith('#')) {
      blocks.push({ start, end: i + 1, duration });
      start = i + 1;
    }
  }
  // The open segment's parts count toward the playlist's length as its segments do.
  const tail = lines.slice(start).reduce((sum, line) => {
    const part = /^#EXT-X-PART:DURATION=([\d.]+)/.exec(line);
    return sum + (part ? Number(part[1]) : 0);
  }, 0);
  const total = blocks.reduce((sum, b) => sum + b.duration, 0) + tail;
  let skipped = 0;
  let elapsed = 0;
  // A segment starting more than CAN-SKIP-UNTIL before the end may go; never one after a skipped discontinuity's.
  while (skipped < blocks.length && total - elapsed > position.canSkipUntil) {
    const block = blocks[skipped]!;
    if (lines.slice(block.start, block.end).includes('#EXT-X-DISCONTINUITY')) break;
    elapsed += block.duration;
    skipped++;
  }
  const kept = skipped === 0 ? firstSegmentLine : blocks[skipped - 1]!.end;
  return [...lines.slice(0, firstSegmentLine), `#EXT-X-SKIP:SKIPPED-SEGMENTS=${skipped}`, ...lines.slice(kept)].join(
    '\n',
  );
}
