// Captions end to end: a clip transcoded by the real farm (x264 `superfast`, so with B-frames, as
// most presets make them), caption tracks added through the SDK (WebVTT, and SRT converted), and
// then what delivery serves of them: the master playlist's subtitles group on every variant, the
// subtitles playlist on the video's own segment grid, WebVTT segments carrying X-TIMESTAMP-MAP (a cue
// across a segment boundary in both), the whole file at the track's `url`, and a private video's
// token on every URI (nothing without it). Then Debian's Chromium plays both videos with hls.js:
// it lists the tracks, and each cue of the default track becomes active at its time.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { CaptionTrack } from '@kino/sdk';
import { makeClip } from '@kino/test/support/media';
import { launchChromium, startPageHost, type PageHost } from '@kino/test/support/players';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';

// Plays `?src=` with hls.js at twice real time and records the tracks hls.js lists, the one it
// selects by itself (the master's DEFAULT=YES), and for every cue, when it first became active.
const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Kino captions</title><script src="/hls.min.js"></script></head>
<body><video id="v" muted playsinline></video>
<script>
  const outcome = { ended: false, errors: [], tracks: [], selected: -1, cues: {}, events: [], textTracks: [] };
  window.playback = outcome;
  const video = document.getElementById('v');
  const src = new URLSearchParams(location.search).get('src');
  const hls = new Hls();
  hls.on(Hls.Events.ERROR, (_event, data) => outcome.errors.push(data.type + '/' + data.details + (data.fatal ? ' (fatal)' : '')));
  hls.on(Hls.Events.SUBTITLE_TRACKS_UPDATED, (_event, data) => {
    outcome.tracks = data.subtitleTracks.map((t) => ({ name: t.name, lang: t.lang, default: t.default }));
  });
  hls.on(Hls.Events.SUBTITLE_TRACK_SWITCH, (_event, data) => { outcome.selected = data.id; });
  hls.on(Hls.Events.MANIFEST_PARSED, () => {
    video.playbackRate = 2;
    video.play().catch((error) => outcome.errors.push('play(): ' + error.message + ' (fatal)'));
  });
  const watch = (track) => track.addEventListener('cuechange', () => {
    for (const cue of Array.from(track.activeCues || [])) {
      if (!(cue.text in outcome.cues)) outcome.cues[cue.text] = { at: video.currentTime, start: cue.startTime, end: cue.endTime, language: track.language };
    }
  });
  video.textTracks.addEventListener('addtrack', (event) => watch(event.track));
  hls.on(Hls.Events.SUBTITLE_FRAG_PROCESSED, (_event, data) => outcome.events.push('frag ' + data.frag.sn + ' ' + data.success));
  hls.on(Hls.Events.CUES_PARSED, (_event, data) => outcome.events.push('cues ' + data.track + ' ' + data.cues.map((c) => c.startTime.toFixed(3) + '-' + c.endTime.toFixed(3)).join(',')));
  video.addEventListener('ended', () => {
    outcome.textTracks = Array.from(video.textTracks).map((t) => t.kind + '/' + t.label + '/' + t.language + '/' + t.mode + '/' + (t.cues ? t.cues.length : 'null'));
    outcome.ended = true;
  });
  hls.loadSource(src);
  hls.attachMedia(video);
</script></body></html>`;

interface Outcome {
  ended: boolean;
  errors: string[];
  tracks: { name: string; lang: string; default: boolean }[];
  /** The subtitles track hls.js switched to (-1: none). */
  selected: number;
  /** By cue text: the playback time it first became active at, and its times as hls.js placed it. */
  cues: Record<string, { at: number; start: number; end: number; language: string }>;
  /** hls.js's subtitle events and the element's text tracks at the end, for a failure's message. */
  events: string[];
  textTracks: string[];
}

/** Three cues: before, across and after the 6 s segment boundary. */
const english = [
  'WEBVTT',
  '',
  '00:00:01.000 --> 00:00:03.000',
  'First words',
  '',
  '00:00:05.000 --> 00:00:08.000',
  'Across the boundary',
  '',
  '00:00:09.500 --> 00:00:11.500',
  'Near the end',
  '',
].join('\n');
const cueTimes: Record<string, [number, number]> = {
  'First words': [1, 3],
  'Across the boundary': [5, 8],
  'Near the end': [9.5, 11.5],
};
const french = '1\n00:00:02,000 --> 00:00:04,000\nPremiers mots\n';

let farm: FarmTenant;
let workDir: string;
let pageHost: PageHost;
let browser: Browser;
let publicVideoId: string;
let privateVideoId: string;
/** The tracks added, by video id: [en, fr]. */
const added = new Map<string, CaptionTrack[]>();

async function transcode(clip: Buffer, allowPublicAccess: boolean): Promise<string> {
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: 'clip.mp4',
    fileSize: clip.length,
    contentType: 'video/mp4',
  });
  await farm.kino.uploads.putFile(ticket, clip, 'video/mp4');
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess,
    compressionRatio: 'superfast',
  });
  await farm.waitForStatus(videoID, 'ready', 240_000);
  const en = await farm.kino.videos.addCaption(farm.orgId, videoID, {
    language: 'en',
    label: 'English',
    content: english,
    default: true,
  });
  const fr = await farm.kino.videos.addCaption(farm.orgId, videoID, { language: 'fr', content: french, format: 'srt' });
  added.set(videoID, [en, fr]);
  return videoID;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-captions-'));
  let clipPath: string;
  [farm, clipPath, pageHost, browser] = await Promise.all([
    joinSharedFarm('captions-playback'),
    // 13 s at 854x480: two renditions (360p, 480p) of three segments (6, 6, 1).
    makeClip({ seconds: 13, width: 854, height: 480, fps: 24, audio: true, path: join(workDir, 'clip.mp4') }),
    startPageHost({ '/captions': page }),
    launchChromium(),
  ]);
  const clip = await readFile(clipPath);
  [publicVideoId, privateVideoId] = await Promise.all([transcode(clip, true), transcode(clip, false)]);
});

afterAll(async () => {
  await browser?.close();
  await pageHost?.close();
  await farm?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function text(url: string, expectStatus = 200): Promise<string> {
  const response = await fetch(url);
  const body = await response.text();
  assert.equal(response.status, expectStatus, `${url}: ${body}`);
  return body;
}

/** The URI lines of a playlist. */
const uriLines = (playlist: string) => playlist.split('\n').filter((line) => line && !line.startsWith('#'));

describe('what delivery serves of a caption track', () => {
  test('a public video: the subtitles group on every variant, playlists on the video grid, segments with the timestamp map', async () => {
    const base = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${publicVideoId}`;
    const master = await text(`${base}/master.m3u8`);
    const media = master.split('\n').filter((line) => line.startsWith('#EXT-X-MEDIA:'));
    assert.deepEqual(media, [
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="subtitles-en.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="French",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-fr.m3u8"',
    ]);
    const variants = master.split('\n').filter((line) => line.startsWith('#EXT-X-STREAM-INF:'));
    assert.equal(variants.length, 2);
    for (const variant of variants) assert.match(variant, /,SUBTITLES="subs"$/);

    // The subtitles follow the video's segments exactly.
    const rendition = await text(`${base}/video-360p.m3u8`);
    const subtitles = await text(`${base}/subtitles-en.m3u8`);
    const durations = (playlist: string) =>
      [...playlist.matchAll(/^#EXTINF:([\d.]+),/gm)].map((m) => Number(Number(m[1]).toFixed(3)));
    assert.deepEqual(durations(subtitles), durations(rendition));
    assert.equal(durations(subtitles).length, 3);
    assert.deepEqual(uriLines(subtitles), [
      'subtitles-en/seg-00000.vtt',
      'subtitles-en/seg-00001.vtt',
      'subtitles-en/seg-00002.vtt',
    ]);
    assert.match(subtitles, /#EXT-X-PLAYLIST-TYPE:VOD/);
    assert.match(subtitles, /#EXT-X-ENDLIST/);

    const segments = await Promise.all(uriLines(subtitles).map((uri) => text(`${base}/${uri}`)));
    for (const segment of segments) assert.match(segment, /^WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00\.000\n/);
    const cuesOf = (segment: string) => [...segment.matchAll(/-->.*\n(.+)/g)].map((m) => m[1]);
    assert.deepEqual(segments.map(cuesOf), [
      ['First words', 'Across the boundary'],
      ['Across the boundary', 'Near the end'],
      [],
    ]);

    // The whole file, at the track's url; SRT was stored as WebVTT.
    const [en, fr] = added.get(publicVideoId)!;
    assert.equal(en!.url, `${base}/subtitles-en.vtt`);
    assert.equal(await text(en!.url), `${english}`);
    assert.equal(await text(fr!.url), 'WEBVTT\n\n1\n00:00:02.000 --> 00:00:04.000\nPremiers mots\n');
    const response = await fetch(en!.url);
    assert.equal(response.headers.get('content-type'), 'text/vtt; charset=utf-8');
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    // The direct family names the same files.
    assert.match(await text(`${farm.deliveryUrl}/${publicVideoId}/master.m3u8`), /URI="subtitles-en\.m3u8"/);
    assert.equal(await text(`${farm.deliveryUrl}/${publicVideoId}/subtitles-en/seg-00001.vtt`), segments[1]);
    await text(`${base}/subtitles-de.m3u8`, 404);
    await text(`${base}/subtitles-en/seg-00003.vtt`, 404);
  });

  test('a private video: every caption URI carries the token, and nothing is served without one', async () => {
    const { signed_url } = await farm.kino.playback.signedUrl(farm.orgId, privateVideoId, { expiration: '1h' });
    const token = new URL(signed_url).searchParams.get('token')!;
    const base = `${farm.deliveryUrl}/v1/private/${privateVideoId}`;
    const master = await text(signed_url);
    assert.match(master, new RegExp(`URI="subtitles-en\\.m3u8\\?token=${token}"`));
    const subtitles = await text(`${base}/subtitles-en.m3u8?token=${token}`);
    for (const uri of uriLines(subtitles)) assert.ok(uri.endsWith(`?token=${token}`), uri);
    assert.match(await text(`${base}/${uriLines(subtitles)[1]}`), /Across the boundary/);
    for (const name of ['subtitles-en.m3u8', 'subtitles-en/seg-00000.vtt', 'subtitles-en.vtt'])
      await text(`${base}/${name}`, 401);
    // The public family does not open a private video's captions either.
    await text(`${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${privateVideoId}/subtitles-en.vtt`, 401);
    // The track's url carries a token of its own.
    assert.match(added.get(privateVideoId)![0]!.url, new RegExp(`^${base}/subtitles-en\\.vtt\\?token=`));
    assert.equal(await text(added.get(privateVideoId)![0]!.url), english);
  });
});

async function play(src: string): Promise<Outcome> {
  const tab = await browser.newPage();
  try {
    await tab.goto(`${pageHost.origin}/captions?src=${encodeURIComponent(src)}`);
    await tab.waitForFunction(
      () => {
        const outcome = (window as unknown as { playback: Outcome }).playback;
        return outcome.ended || outcome.errors.some((e) => e.endsWith('(fatal)'));
      },
      undefined,
      { timeout: 60_000, polling: 100 },
    );
    return await tab.evaluate(() => (window as unknown as { playback: Outcome }).playback);
  } finally {
    await tab.close();
  }
}

function assertCaptionsShown(outcome: Outcome): void {
  assert.deepEqual(outcome.errors, []);
  assert.equal(outcome.ended, true);
  assert.deepEqual(outcome.tracks, [
    { name: 'English', lang: 'en', default: true },
    { name: 'French', lang: 'fr', default: false },
  ]);
  assert.equal(outcome.selected, 0, 'hls.js shows the default track by itself');
  assert.deepEqual(Object.keys(outcome.cues).sort(), Object.keys(cueTimes).sort(), JSON.stringify(outcome));
  for (const [cueText, [start, end]] of Object.entries(cueTimes)) {
    const seen = outcome.cues[cueText]!;
    assert.equal(seen.language, 'en');
    // Placed at its time on the video's timeline (within 0.1 s: a B-frame delay is a frame or two)...
    assert.ok(
      Math.abs(seen.start - start) < 0.1 && Math.abs(seen.end - end) < 0.1,
      `${cueText}: placed at ${seen.start}–${seen.end}, not ${start}–${end}`,
    );
    // ...and shown while the video was within it, not before.
    assert.ok(
      seen.at >= start - 0.05 && seen.at <= end,
      `${cueText}: shown at ${seen.at} s, its time is ${start}–${end} s`,
    );
  }
}

test('hls.js lists the tracks of a public video and shows each cue at its time', async () => {
  assertCaptionsShown(
    await play(`${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${publicVideoId}/master.m3u8`),
  );
});

test('hls.js lists the tracks of a private video through its signed URL and shows each cue at its time', async () => {
  const { signed_url } = await farm.kino.playback.signedUrl(farm.orgId, privateVideoId, {
    domains: ['127.0.0.1'],
    expiration: '15m',
  });
  assertCaptionsShown(await play(signed_url));
});

test('a track added or removed through the API is in the very next master a player loads', async () => {
  const base = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${publicVideoId}`;
  const languages = async () =>
    [...(await text(`${base}/master.m3u8`)).matchAll(/TYPE=SUBTITLES,[^\n]*LANGUAGE="([^"]+)"/g)].map((m) => m[1]);
  // Loaded first, so delivery holds the video as it was before the change.
  assert.deepEqual(await languages(), ['en', 'fr']);
  const de = await farm.kino.videos.addCaption(farm.orgId, publicVideoId, { language: 'de', content: english });
  assert.deepEqual(await languages(), ['de', 'en', 'fr'], 'listed as soon as the call answered');
  assert.equal(await text(de.url), english, "the track's file is served at once too");
  await text(`${base}/subtitles-de.m3u8`);
  await farm.kino.videos.removeCaption(farm.orgId, publicVideoId, 'de');
  assert.deepEqual(await languages(), ['en', 'fr'], 'gone as soon as the call answered');
  await text(`${base}/subtitles-de.m3u8`, 404);
});
