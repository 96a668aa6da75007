import { test } from 'vitest';
import assert from 'node:assert/strict';
import {
  addSubtitlesToMaster,
  CaptionParseError,
  parseCaptionFile,
  parseWebVtt,
  playlistSegmentDurations,
  renderSubtitlesPlaylist,
  renderWebVtt,
  segmentWebVtt,
} from './captions.ts';

function parseErrorOf(run: () => unknown): CaptionParseError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof CaptionParseError, `expected a CaptionParseError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the file to be refused');
}

test('SRT becomes WebVTT: dot decimals, numbers kept as cue ids, font tags dropped, text escaped', () => {
  const srt =
    '\uFEFF1\r\n00:00:01,500 --> 00:00:03,000\r\n<font color="red">Hello</font> & <i>welcome</i>\r\n\r\n2\r\n01:02:03,004 --> 01:02:05,000\r\n{\\an8}Top line\r\nsecond line\r\n';
  const vtt = renderWebVtt(parseCaptionFile(srt, 'srt'));
  assert.equal(
    vtt,
    'WEBVTT\n\n1\n00:00:01.500 --> 00:00:03.000\nHello &amp; <i>welcome</i>\n\n2\n01:02:03.004 --> 01:02:05.000\nTop line\nsecond line\n',
  );
  // What Kino stores parses again as WebVTT, to the same cues.
  assert.deepEqual(parseWebVtt(vtt), parseCaptionFile(srt, 'srt'));
});

test('a bad SRT file is refused with the line at fault', () => {
  const srt = '1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:03,000 -> 00:00:04,000\nbroken arrow\n';
  const error = parseErrorOf(() => parseCaptionFile(srt, 'srt'));
  assert.equal(error.line, 6);
  assert.match(error.message, /^line 6: expected a timing line/);
  assert.equal(parseErrorOf(() => parseCaptionFile('1\n00:00:01,000 --> 00:00:02,000\nok\n\nhello\n', 'srt')).line, 5);
  assert.equal(parseErrorOf(() => parseCaptionFile('1\n00:00:05,000 --> 00:00:02,000\nbackwards\n', 'srt')).line, 2);
});

test('WebVTT is parsed strictly: header, timestamps, end after start, no cue without timing', () => {
  assert.equal(parseErrorOf(() => parseCaptionFile('WEBVT\n\n00:01.000 --> 00:02.000\nx\n', 'vtt')).line, 1);
  assert.equal(
    parseErrorOf(() => parseCaptionFile('WEBVTT\n\n00:01.000 --> 00:02.000\nx\n\n00:03.00 --> 00:04.000\ny\n', 'vtt'))
      .line,
    6,
  );
  assert.equal(
    parseErrorOf(() => parseCaptionFile('WEBVTT\n\nintro\n00:01.000 --> 00:02.000\nx\n\nlonely id\n', 'vtt')).line,
    8,
  );
  // A broken arrow is named on its own line, not taken for a cue identifier.
  const arrow = parseErrorOf(() => parseCaptionFile('WEBVTT\n\n00:00:01.000 -> 00:00:02.000\nno arrow\n', 'vtt'));
  assert.equal(
    arrow.message,
    'line 3: expected a timing line ("00:00:01.000 --> 00:00:02.000"), found "00:00:01.000 -> 00:00:02.000"',
  );
  assert.equal(
    parseErrorOf(() => parseCaptionFile('WEBVTT\n\n00:01.000 --> 00:02.000\nx\n00:03.000 --> 00:04.000\ny\n', 'vtt'))
      .line,
    5,
  );
  assert.equal(
    parseErrorOf(() => parseCaptionFile('WEBVTT\n\nNOTE only a note\n', 'vtt')).message,
    'line 1: the file has no cues',
  );
  const parsed = parseCaptionFile(
    'WEBVTT - title\n\nSTYLE\n::cue { color: yellow }\n\nNOTE skipped\n\nc1\n00:01.000 --> 00:02.500 align:start line:0\n<v Ann>Hi\n',
    'vtt',
  );
  assert.deepEqual(parsed, {
    preamble: ['STYLE\n::cue { color: yellow }'],
    cues: [{ id: 'c1', startSeconds: 1, endSeconds: 2.5, settings: 'align:start line:0', text: '<v Ann>Hi' }],
  });
});

test('segments follow the video: a cue across a boundary is in both segments, each with the timestamp map', () => {
  const vtt = parseWebVtt(
    'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nfirst\n\n00:00:05.000 --> 00:00:07.000\nacross\n\n00:00:13.000 --> 00:00:14.000\nafter the end\n',
  );
  const segments = segmentWebVtt(vtt, [6, 6, 0.5]);
  assert.equal(segments.length, 3);
  for (const segment of segments) assert.match(segment, /^WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00\.000\n\n/);
  assert.deepEqual(
    segments.map((segment) => parseWebVtt(segment).cues.map((cue) => cue.text)),
    [['first', 'across'], ['across'], ['after the end']],
  );
  // Cue times stay on the video's timeline.
  assert.equal(parseWebVtt(segments[1]!).cues[0]!.startSeconds, 5);
});

test('the subtitles playlist mirrors the segment durations; the master gains the group on every variant', () => {
  const durations = playlistSegmentDurations(
    '#EXTM3U\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:6.000000,\nseg-00000.m4s\n#EXTINF:2.5,\nseg-00001.m4s\n#EXT-X-ENDLIST\n',
  );
  assert.deepEqual(durations, [6, 2.5]);
  assert.equal(
    renderSubtitlesPlaylist('pt-BR', durations),
    '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:6.000,\nsubtitles-pt-BR/seg-00000.vtt\n#EXTINF:2.500,\nsubtitles-pt-BR/seg-00001.vtt\n#EXT-X-ENDLIST\n',
  );
  const master =
    '#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-STREAM-INF:BANDWIDTH=1\n360p/playlist.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\n720p/playlist.m3u8\n';
  assert.equal(addSubtitlesToMaster(master, []), master);
  assert.equal(
    addSubtitlesToMaster(master, [
      { language: 'en', label: 'English "CC"', isDefault: true },
      { language: 'fr', label: 'Français', isDefault: false },
    ]),
    '#EXTM3U\n#EXT-X-VERSION:7\n' +
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English \'CC\'",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="subtitles-en.m3u8"\n' +
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-fr.m3u8"\n' +
      '#EXT-X-STREAM-INF:BANDWIDTH=1,SUBTITLES="subs"\n360p/playlist.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2,SUBTITLES="subs"\n720p/playlist.m3u8\n',
  );
});
