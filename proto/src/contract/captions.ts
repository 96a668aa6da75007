// Captions (docs/decisions/delivery.md#captions): one WebVTT file per video and language. The API
// reads what a client uploads (WebVTT, or SRT converted to WebVTT), refusing a file it cannot parse
// with the line at fault; delivery cuts the stored file into WebVTT segments on the video's own
// segment boundaries for the subtitles playlist, and serves the whole file for download.
//
// Names in every path family, beside the master playlist: `subtitles-<lang>.m3u8` (the playlist),
// `subtitles-<lang>/seg-<n>.vtt` (its segments) and `subtitles-<lang>.vtt` (the whole file).

/** The largest caption file the API takes (its text, in UTF-8 bytes). */
export const captionMaxBytes = 2 * 1024 * 1024;

export const captionFormats = ['vtt', 'srt'] as const;
export type CaptionFormat = (typeof captionFormats)[number];

export const captionContentTypes = {
  vtt: 'text/vtt; charset=utf-8',
} as const;

/** The subtitles group every variant of a captioned video names (`SUBTITLES="subs"`). */
export const subtitlesGroupId = 'subs';

export const captionFileNames = {
  playlist: (language: string) => `subtitles-${language}.m3u8`,
  segment: (language: string, index: number) => `subtitles-${language}/seg-${String(index).padStart(5, '0')}.vtt`,
  whole: (language: string) => `subtitles-${language}.vtt`,
};

export interface Cue {
  /** The cue's identifier line, when it has one. */
  id?: string;
  startSeconds: number;
  endSeconds: number;
  /** Cue settings after the end time (`line:0 align:start`), as written. */
  settings: string;
  /** The payload lines, joined with `\n`. */
  text: string;
}

export interface WebVtt {
  /** STYLE and REGION blocks, which WebVTT puts before the first cue; every segment repeats them. */
  preamble: string[];
  cues: Cue[];
}

/** A caption file that does not parse; `line` is 1-based, in the text as uploaded. */
export class CaptionParseError extends Error {
  readonly line: number;
  readonly reason: string;
  constructor(line: number, reason: string) {
    super(`line ${line}: ${reason}`);
    this.line = line;
    this.reason = reason;
    this.name = 'CaptionParseError';
  }
}

// WebVTT: (hh:)mm:ss.ttt, hours of two or more digits. SRT: hh:mm:ss,ttt (a dot is tolerated:
// many tools write it).
const vttTime = /^(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})$/;
const srtTime = /^(\d{1,}):([0-5]\d):([0-5]\d)[,.](\d{1,3})$/;

function splitLines(text: string): string[] {
  return text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
}

function parseTimingLine(
  line: string,
  lineNumber: number,
  time: RegExp,
): { start: number; end: number; settings: string } {
  const arrow = line.indexOf('-->');
  if (arrow === -1)
    throw new CaptionParseError(
      lineNumber,
      `expected a timing line ("00:00:01.000 --> 00:00:02.000"), found "${clip(line)}"`,
    );
  const startText = line.slice(0, arrow).trim();
  const [endText = '', ...settings] = line
    .slice(arrow + 3)
    .trim()
    .split(/[ \t]+/);
  const start = parseTime(startText, time, lineNumber);
  const end = parseTime(endText, time, lineNumber);
  if (end <= start)
    throw new CaptionParseError(lineNumber, `the cue ends (${endText}) before or when it starts (${startText})`);
  return { start, end, settings: settings.join(' ') };
}

function parseTime(text: string, time: RegExp, lineNumber: number): number {
  const match = time.exec(text);
  if (!match) throw new CaptionParseError(lineNumber, `"${clip(text)}" is not a timestamp`);
  const [, hours = '0', minutes, seconds, fraction] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(fraction!.padEnd(3, '0')) / 1000;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** Parses a WebVTT file strictly enough that every cue Kino serves has valid times. */
export function parseWebVtt(text: string): WebVtt {
  const lines = splitLines(text);
  if (!/^WEBVTT(?:[ \t].*)?$/.test(lines[0] ?? ''))
    throw new CaptionParseError(1, 'a WebVTT file starts with "WEBVTT"');
  let i = 1;
  // The header runs to the first blank line.
  while (i < lines.length && lines[i]!.trim() !== '') {
    if (lines[i]!.includes('-->'))
      throw new CaptionParseError(i + 1, 'a blank line must separate the "WEBVTT" header from the first cue');
    i += 1;
  }
  const preamble: string[] = [];
  const cues: Cue[] = [];
  while (i < lines.length) {
    if (lines[i]!.trim() === '') {
      i += 1;
      continue;
    }
    const blockStart = i;
    const block: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '') block.push(lines[i++]!);
    const first = block[0]!;
    if (/^NOTE(?:[ \t]|$)/.test(first)) continue;
    if (/^(?:STYLE|REGION)[ \t]*$/.test(first)) {
      if (cues.length > 0)
        throw new CaptionParseError(blockStart + 1, `a ${first.trim()} block must come before the first cue`);
      preamble.push(block.join('\n'));
      continue;
    }
    const hasId = !first.includes('-->');
    // A timing line with a broken arrow would otherwise pass for a cue identifier, and the error land a line late.
    if (hasId && /^(?:\d+:)?\d{1,2}:\d{2}[.,]\d+\s*-/.test(first)) parseTimingLine(first, blockStart + 1, vttTime);
    const timingIndex = hasId ? 1 : 0;
    const timing = block[timingIndex];
    if (timing === undefined)
      throw new CaptionParseError(blockStart + 2, `the cue "${clip(first)}" has no timing line`);
    const { start, end, settings } = parseTimingLine(timing, blockStart + timingIndex + 1, vttTime);
    const payload = block.slice(timingIndex + 1);
    const arrowInText = payload.findIndex((line) => line.includes('-->'));
    if (arrowInText !== -1)
      throw new CaptionParseError(
        blockStart + timingIndex + 2 + arrowInText,
        'cue text may not contain "-->" (is a blank line missing before this cue?)',
      );
    cues.push({
      ...(hasId ? { id: first } : {}),
      startSeconds: start,
      endSeconds: end,
      settings,
      text: payload.join('\n'),
    });
  }
  return { preamble, cues };
}

/** Parses an SRT file: numbered blocks of a timing line and the text. */
export function parseSrt(text: string): WebVtt {
  const lines = splitLines(text);
  const cues: Cue[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.trim() === '') {
      i += 1;
      continue;
    }
    const counter = lines[i]!.trim();
    if (!/^\d+$/.test(counter))
      throw new CaptionParseError(i + 1, `expected a subtitle number, found "${clip(counter)}"`);
    const timing = lines[i + 1];
    if (timing === undefined || timing.trim() === '')
      throw new CaptionParseError(i + 2, `subtitle ${counter} has no timing line`);
    const { start, end, settings } = parseTimingLine(timing.trim(), i + 2, srtTime);
    if (settings !== '') throw new CaptionParseError(i + 2, `unexpected "${clip(settings)}" after the end time`);
    i += 2;
    const payload: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '') payload.push(lines[i++]!);
    cues.push({
      id: counter,
      startSeconds: start,
      endSeconds: end,
      settings: '',
      text: srtTextToVtt(payload.join('\n')),
    });
  }
  return { preamble: [], cues };
}

/**
 * SRT text as WebVTT cue text: `<b>`, `<i>`, `<u>` are WebVTT tags already; `<font>` and ASS
 * override blocks (`{\an8}`) are not and go; a literal `-->` or `&`/`<` outside a tag is escaped.
 */
function srtTextToVtt(text: string): string {
  return text
    .replace(/\{\\[^}]*\}/g, '')
    .replace(/<\/?font\b[^>]*>/gi, '')
    .replace(/&(?![a-z]+;|#\d+;|#x[0-9a-f]+;)/gi, '&amp;')
    .replace(/<(?!\/?[biu]>)/gi, '&lt;')
    .replace(/-->/g, '--&gt;');
}

/** Reads an uploaded caption file; throws CaptionParseError naming the line at fault. */
export function parseCaptionFile(content: string, format: CaptionFormat): WebVtt {
  const parsed = format === 'srt' ? parseSrt(content) : parseWebVtt(content);
  if (parsed.cues.length === 0) throw new CaptionParseError(1, 'the file has no cues');
  return parsed;
}

export function formatVttTime(seconds: number): string {
  const millis = Math.round(seconds * 1000);
  const h = Math.floor(millis / 3_600_000);
  const m = Math.floor((millis % 3_600_000) / 60_000);
  const s = Math.floor((millis % 60_000) / 1000);
  const ms = millis % 1000;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(ms).padStart(3, '0')}`;
}

function cueText(cue: Cue): string {
  const timing = `${formatVttTime(cue.startSeconds)} --> ${formatVttTime(cue.endSeconds)}${cue.settings ? ` ${cue.settings}` : ''}`;
  return [...(cue.id !== undefined ? [cue.id] : []), timing, ...(cue.text === '' ? [] : [cue.text])].join('\n');
}

/** A WebVTT file of these cues, with `headerLines` after the `WEBVTT` line. */
export function renderWebVtt(vtt: WebVtt, headerLines: readonly string[] = []): string {
  const blocks = [['WEBVTT', ...headerLines].join('\n'), ...vtt.preamble, ...vtt.cues.map(cueText)];
  return `${blocks.join('\n\n')}\n`;
}

/**
 * One WebVTT segment per media segment: the cues that show during [start, end) of each (a cue
 * crossing a boundary is in both segments; players drop the repeat), with cue times left on the
 * video's timeline. X-TIMESTAMP-MAP ties cue time 0 to presentation time 0 of the video: Kino's
 * fMP4 segments keep the source's timestamps (the first video fragment's base media decode time is
 * 0, and a chunk's segments are shifted to the video's time), so MPEGTS is 0 at LOCAL 0.
 */
export function segmentWebVtt(vtt: WebVtt, segmentDurations: readonly number[]): string[] {
  const map = 'X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000';
  const segments: string[] = [];
  let start = 0;
  segmentDurations.forEach((duration, index) => {
    const last = index === segmentDurations.length - 1;
    const end = start + duration;
    // The last segment also takes cues that start after the video ends, so none is lost.
    const cues = vtt.cues.filter((cue) => cue.endSeconds > start && (last || cue.startSeconds < end));
    segments.push(renderWebVtt({ preamble: vtt.preamble, cues }, [map]));
    start = end;
  });
  return segments;
}

/** The subtitles media playlist: one WebVTT segment per media segment of the video (`uriSuffix`: a token query). */
export function renderSubtitlesPlaylist(language: string, segmentDurations: readonly number[], uriSuffix = ''): string {
  const target = Math.max(1, ...segmentDurations.map((d) => Math.round(d)));
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    `#EXT-X-TARGETDURATION:${target}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
  ];
  segmentDurations.forEach((duration, index) => {
    lines.push(`#EXTINF:${duration.toFixed(3)},`, `${captionFileNames.segment(language, index)}${uriSuffix}`);
  });
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/** The EXTINF durations of a media playlist, in order. */
export function playlistSegmentDurations(playlist: string): number[] {
  return [...playlist.matchAll(/^#EXTINF:([\d.]+)/gm)].map((match) => Number(match[1]));
}

export interface SubtitlesTrack {
  language: string;
  label: string;
  isDefault: boolean;
}

/** A playlist attribute's quoted string (NAME, LANGUAGE of an EXT-X-MEDIA). */
export function quoted(value: string): string {
  // Quoted strings in a playlist cannot hold a double quote or a line break (RFC 8216 4.2).
  return `"${value.replace(/["\r\n]/g, "'")}"`;
}

/**
 * Adds the subtitles group to a master playlist: one EXT-X-MEDIA per track before the first
 * variant, and `SUBTITLES="subs"` on every EXT-X-STREAM-INF. The URIs are relative to the master
 * (`subtitles-en.m3u8`), like the variants', followed by `uriSuffix` (a token query) as theirs are.
 */
export function addSubtitlesToMaster(master: string, tracks: readonly SubtitlesTrack[], uriSuffix = ''): string {
  if (tracks.length === 0) return master;
  const media = tracks.map((track) =>
    [
      '#EXT-X-MEDIA:TYPE=SUBTITLES',
      `GROUP-ID="${subtitlesGroupId}"`,
      `NAME=${quoted(track.label)}`,
      `LANGUAGE=${quoted(track.language)}`,
      `DEFAULT=${track.isDefault ? 'YES' : 'NO'}`,
      `AUTOSELECT=YES`,
      `URI="${captionFileNames.playlist(track.language)}${uriSuffix}"`,
    ].join(','),
  );
  const out: string[] = [];
  let added = false;
  for (const line of master.split('\n')) {
    if (line.startsWith('#EXT-X-STREAM-INF:')) {
      if (!added) {
        out.push(...media);
        added = true;
      }
      out.push(`${line},SUBTITLES="${subtitlesGroupId}"`);
    } else {
      out.push(line);
    }
  }
  return out.join('\n');
}

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** A track's label when none is given: its language's name in English (`pt-BR`: "Brazilian Portuguese"). */
export function defaultCaptionLabel(language: string): string {
  try {
    return languageNames.of(language) ?? language;
  } catch {
    return language;
  }
}
