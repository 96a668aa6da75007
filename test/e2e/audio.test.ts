// Audio on the real farm (API, Temporal, orchestrator, an encode node, delivery): a source with no
// video stream becomes an audio-only video (one AAC rendition, no thumbnail) whose HLS decodes to
// the source's duration and plays to its end in hls.js in Chromium; every video with sound gets
// `audio.m4a` (AAC in MP4, moov first) in the public, private and direct families with the token
// rules of MP4 downloads, which decodes to the video's duration; a silent video's is 404. A source
// with two audio tracks (English at 440 Hz, Spanish at 880 Hz) is offered as two alternate audio
// renditions, each of its own track, one default; hls.js and Shaka in Chromium switch between them.
// A French track added to that video once ready (POST .../audio-tracks, a tone longer than the
// video) becomes a third rendition of the video's length, which the master offers and both players
// switch to; a file without sound fails with the reason; a missing, unfinished or muxed-sound video
// is refused.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Request } from 'playwright-core';
import { APIError, type AudioTrack } from '@kino/sdk';
import { makeClip } from '@kino/test/support/media';
import { mediaPlaylistDurations } from '@kino/proto/contract';
import { launchChromium, playThrough, startPageHost, webPlayers, type PageHost } from '@kino/test/support/players';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';

const run = promisify(execFile);

let farm: FarmTenant;
let workDir: string;
let browser: Browser;
let host: PageHost;
let deliveryUrl: string;
/**
 * song: AAC audio only, public (remuxed); opus: Opus audio only in WebM, private (encoded); clip:
 * picture and sound, private; silent: picture only, public; dubbed: picture and two audio tracks, public.
 */
const videos: Record<'song' | 'opus' | 'clip' | 'silent' | 'dubbed' | 'muxed', string> = {
  song: '',
  opus: '',
  clip: '',
  silent: '',
  dubbed: '',
  muxed: '',
};
/** Sources kept for the added-track cases: the French and Spanish tracks, and a file with no sound. */
const files = { french: '', spanish: '', silent: '' };
const songSeconds = 8;
const clipSeconds = 4;
/** Two segments: a player switching tracks after the first still has one to fetch in the other. */
const dubbedSeconds = 8;
/** Each track's tone: what tells them apart once decoded (fr: the added track's). */
const tones = { en: 440, es: 880, fr: 660 };
/** The added French track runs past the video's end: its rendition is cut at the video's duration. */
const frenchSeconds = 10;
/** The Spanish track ends before the picture, as dubs do: its rendition is padded with silence. */
const spanishSeconds = 6;

/** One audio track of a made source: a tone, its length, and the language tag ffmpeg writes. */
interface ToneTrack {
  hz: number;
  seconds: number;
  language: string;
}

/** A small picture (`dubbedSeconds` long) with a tone track for each of `tracks`, in order. */
async function makeWithTracks(path: string, tracks: ToneTrack[]): Promise<string> {
  const inputs = tracks.flatMap(({ hz, seconds }) => [
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=${hz}:sample_rate=48000:duration=${seconds}`,
  ]);
  const maps = tracks.flatMap((_, k) => ['-map', `${k + 1}:a`]);
  const languages = tracks.flatMap(({ language }, k) => [`-metadata:s:a:${k}`, `language=${language}`]);
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=160x90:rate=25:duration=${dubbedSeconds}`],
    ...inputs,
    ...['-map', '0:v', ...maps],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '64k'],
    ...languages,
    path,
  ]);
  return path;
}

/**
 * Two audio tracks, English then Spanish (language tags as ffmpeg writes them: `eng`, `spa`), the
 * Spanish one shorter.
 */
const makeDubbed = (path: string) =>
  makeWithTracks(path, [
    { hz: tones.en, seconds: dubbedSeconds, language: 'eng' },
    { hz: tones.es, seconds: spanishSeconds, language: 'spa' },
  ]);

/**
 * One audio track, English (`eng`), muxed as most uploads are: its variants carry their sound
 * until a track is added to the video.
 */
const makeMuxed = (path: string) => makeWithTracks(path, [{ hz: tones.en, seconds: dubbedSeconds, language: 'eng' }]);

/** A tone of `hz` alone, AAC in MP4 (an `.m4a`), tagged with no language: the API names it. */
async function makeTone(path: string, hz: number, seconds: number): Promise<string> {
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=${hz}:sample_rate=48000:duration=${seconds}`,
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    path,
  ]);
  return path;
}

/** A sound with no picture: a tone, in the container the extension names. */
async function makeSong(path: string, seconds: number): Promise<string> {
  const codec = path.endsWith('.webm') ? ['-c:a', 'libopus', '-b:a', '96k'] : ['-c:a', 'aac', '-b:a', '96k'];
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
    ...codec,
    path,
  ]);
  return path;
}

/** Uploads a file through an upload URL: its storagePath. */
async function uploadFile(path: string, contentType: 'video/mp4' | 'video/webm'): Promise<string> {
  const body = await readFile(path);
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: path.split('/').at(-1)!,
    fileSize: body.length,
    contentType,
  });
  await farm.kino.uploads.putFile(ticket, body, contentType);
  return ticket.bucketPath;
}

async function upload(
  path: string,
  contentType: 'video/mp4' | 'video/webm',
  allowPublicAccess: boolean,
): Promise<string> {
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: await uploadFile(path, contentType),
    videoQuality: 'standard',
    allowPublicAccess,
    compressionRatio: 'ultrafast',
  });
  return videoID;
}

/** Decodes every audio frame of `input` (a file or a playlist URL): errors throw; answers the decoded seconds. */
async function decodedAudioSeconds(input: string): Promise<number> {
  return (await decodedAudio(input)).length / 2 / 48000;
}

/** The frequency of a pure tone in `input`'s first 4 s of audio: its zero crossings, two a period. */
async function toneOf(input: string): Promise<number> {
  const pcm = await decodedAudio(input, 4);
  let crossings = 0;
  for (let offset = 2; offset + 1 < pcm.length; offset += 2)
    if (pcm.readInt16LE(offset - 2) < 0 !== pcm.readInt16LE(offset) < 0) crossings += 1;
  return crossings / 2 / (pcm.length / 2 / 48000);
}

/** Every audio sample of `input` (its first `seconds`), mono 48 kHz s16le; ffmpeg's errors throw. */
async function decodedAudio(input: string, seconds?: number): Promise<Buffer> {
  const { stdout, stderr } = await run(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostats',
      '-v',
      'error',
      '-xerror',
      '-i',
      input,
      ...(seconds === undefined ? [] : ['-t', String(seconds)]),
      '-map',
      '0:a:0',
      '-c:a',
      'pcm_s16le',
      '-ar',
      '48000',
      '-ac',
      '1',
      '-f',
      's16le',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
  );
  if (stderr.toString().trim()) throw new Error(`ffmpeg reported errors decoding ${input}:\n${stderr.toString()}`);
  return stdout;
}

async function probeOf(
  input: string,
): Promise<{ duration: number; streams: Array<{ codec_type: string; codec_name: string }> }> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration:stream=codec_type,codec_name',
    '-of',
    'json',
    input,
  ]);
  const json = JSON.parse(stdout) as {
    format: { duration: string };
    streams: Array<{ codec_type: string; codec_name: string }>;
  };
  return { duration: Number(json.format.duration), streams: json.streams };
}

/** Checks an audio.m4a body: AAC alone in MP4, moov before mdat, the video's duration, every frame decodes. */
async function assertAudioFile(url: string, seconds: number): Promise<void> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  assert.equal(response.headers.get('content-type'), 'audio/mp4');
  assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="[A-Za-z0-9_-]+-audio\.m4a"$/);
  const bytes = Buffer.from(await response.arrayBuffer());
  const moov = bytes.indexOf('moov');
  const mdat = bytes.indexOf('mdat');
  assert.ok(moov > 0 && mdat > 0 && moov < mdat, `moov (${moov}) before mdat (${mdat}): faststart`);
  const file = join(workDir, `audio-${Date.now()}-${Math.random().toString(36).slice(2)}.m4a`);
  await writeFile(file, bytes);
  const probe = await probeOf(file);
  assert.deepEqual(probe.streams, [{ codec_type: 'audio', codec_name: 'aac' }], 'AAC alone');
  assert.ok(Math.abs(probe.duration - seconds) < 0.1, `${url}: ${probe.duration} s of ${seconds}`);
  const decoded = await decodedAudioSeconds(file);
  assert.ok(Math.abs(decoded - seconds) < 0.1, `${url}: ${decoded} s decoded of ${seconds}`);
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-audio-'));
  let paths: string[];
  [farm, paths, browser, host] = await Promise.all([
    joinSharedFarm('audio'),
    Promise.all([
      makeSong(join(workDir, 'song.mp4'), songSeconds),
      makeSong(join(workDir, 'opus.webm'), songSeconds),
      makeClip({
        seconds: clipSeconds,
        width: 320,
        height: 180,
        fps: 25,
        audio: true,
        path: join(workDir, 'clip.mp4'),
      }),
      makeClip({
        seconds: clipSeconds,
        width: 320,
        height: 180,
        fps: 25,
        audio: false,
        path: join(workDir, 'silent.mp4'),
      }),
      makeDubbed(join(workDir, 'dubbed.mp4')),
      makeTone(join(workDir, 'french.m4a'), tones.fr, frenchSeconds),
      makeMuxed(join(workDir, 'muxed.mp4')),
      makeTone(join(workDir, 'spanish.m4a'), tones.es, dubbedSeconds),
    ]),
    launchChromium(),
    startPageHost(),
  ]);
  deliveryUrl = farm.deliveryUrl!;
  const [song, opus, clip, silent, dubbed, french, muxed, spanish] = paths;
  files.french = french!;
  files.spanish = spanish!;
  files.silent = silent!;
  videos.song = await upload(song!, 'video/mp4', true);
  videos.opus = await upload(opus!, 'video/webm', false);
  videos.clip = await upload(clip!, 'video/mp4', false);
  videos.silent = await upload(silent!, 'video/mp4', true);
  videos.dubbed = await upload(dubbed!, 'video/mp4', true);
  videos.muxed = await upload(muxed!, 'video/mp4', true);
  await Promise.all(Object.values(videos).map((id) => farm.waitForStatus(id, 'ready', 240_000)));
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('an audio-only source', () => {
  test('is an audio-only video: one encoding of short edge 0 with the audio fields, no thumbnail or storyboard, audioUrl', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.song);
    assert.equal(details.encodings.length, 1);
    const [encoding] = details.encodings;
    assert.deepEqual(
      [
        encoding!.key,
        encoding!.shortEdgePixels,
        encoding!.videoStreamBitrate,
        encoding!.audioStreamBitrate,
        encoding!.audioFormat,
        encoding!.maxFrameRate,
      ],
      ['0p', 0, 0, 128, 'aac', 0],
    );
    assert.ok(Math.abs(details.durationSeconds - songSeconds) < 0.1, `${details.durationSeconds} s`);
    assert.equal(details.thumbnailUrl, null);
    assert.equal(details.storyboardUrl, undefined);
    assert.equal(details.audioUrl, `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.song}/audio.m4a`);
  });

  test('its HLS is one AAC variant (no RESOLUTION or FRAME-RATE) that decodes to the source duration', async () => {
    const master = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.song}/master.m3u8`;
    const text = await (await fetch(master)).text();
    const variants = text.split('\n').filter((line) => line.startsWith('#EXT-X-STREAM-INF:'));
    assert.equal(variants.length, 1, text);
    assert.match(variants[0]!, /BANDWIDTH=\d+,AVERAGE-BANDWIDTH=\d+,CODECS="mp4a\.40\.2",CLOSED-CAPTIONS=NONE$/);
    assert.doesNotMatch(variants[0]!, /RESOLUTION|FRAME-RATE/);
    const probe = await probeOf(master);
    assert.deepEqual(
      probe.streams.map((s) => [s.codec_type, s.codec_name]),
      [['audio', 'aac']],
    );
    const decoded = await decodedAudioSeconds(master);
    assert.ok(Math.abs(decoded - songSeconds) < 0.1, `${decoded} s decoded of ${songSeconds}`);
    // The direct family's names for the same rendition.
    assert.ok(Math.abs((await decodedAudioSeconds(`${deliveryUrl}/${videos.song}/master.m3u8`)) - songSeconds) < 0.1);
  });

  test.each(webPlayers)('plays to its end in %s in Chromium', async (player) => {
    const outcome = await playThrough(browser, host, {
      player,
      src: `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.song}/master.m3u8`,
      rate: 4,
      timeoutMs: 60_000,
    });
    assert.deepEqual(
      outcome.errors.filter((e) => e.endsWith('(fatal)')),
      [],
      outcome.errors.join('; '),
    );
    assert.equal(outcome.ended, true, `stalled at ${outcome.currentTime} s of ${outcome.duration}`);
    assert.ok(Math.abs(outcome.duration - songSeconds) < 0.2, `duration ${outcome.duration}`);
    assert.equal(outcome.frames, 0, 'no picture');
  });

  test('a private audio-only WebM (Opus) source: its AAC rendition decodes and its audio.m4a is AAC, with a token only', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.opus);
    assert.deepEqual(
      details.encodings.map((e) => [e.key, e.audioFormat]),
      [['0p', 'aac']],
    );
    assert.ok(
      details.audioUrl?.startsWith(`${deliveryUrl}/v1/private/${videos.opus}/audio.m4a?token=`),
      details.audioUrl,
    );
    await assertAudioFile(details.audioUrl!, details.durationSeconds);
  });
});

describe('audio.m4a', () => {
  test('of a public audio-only video: in the public and direct families without a token', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.song);
    for (const url of [details.audioUrl!, `${deliveryUrl}/${videos.song}/audio.m4a`])
      await assertAudioFile(url, details.durationSeconds);
    const head = await fetch(details.audioUrl!, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.ok(Number(head.headers.get('content-length')) > 0);
  });

  test('of a private video with picture and sound: the token rules of MP4 downloads (401 without, 403 for another video, 200 with)', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.clip);
    assert.ok(
      details.audioUrl?.startsWith(`${deliveryUrl}/v1/private/${videos.clip}/audio.m4a?token=`),
      details.audioUrl,
    );
    await assertAudioFile(details.audioUrl!, details.durationSeconds);
    const token = new URL(details.audioUrl!).searchParams.get('token')!;
    const otherToken = new URL((await farm.kino.videos.get(farm.orgId, videos.opus)).audioUrl!).searchParams.get(
      'token',
    )!;
    for (const path of [
      `/v1/private/${videos.clip}/audio.m4a`,
      `/v1/public/${farm.orgId}/${farm.envId}/${videos.clip}/audio.m4a`,
      `/${videos.clip}/audio.m4a`,
    ]) {
      for (const [query, status] of [
        ['', 401],
        [`?token=${otherToken}`, 403],
        [`?token=${token}`, 200],
      ] as const) {
        const response = await fetch(`${deliveryUrl}${path}${query}`, { method: 'HEAD' });
        assert.equal(response.status, status, `${path}${query.slice(0, 8)}`);
        // As for the rendition's MP4 download at the same place.
        const mp4 = path.replace('audio.m4a', path.startsWith('/v1') ? 'video-180p.mp4' : '180p.mp4');
        assert.equal(
          (await fetch(`${deliveryUrl}${mp4}${query}`, { method: 'HEAD' })).status,
          status,
          `${mp4}${query.slice(0, 8)}`,
        );
      }
    }
  });

  test('of a silent video: 404 audio_not_found, and no audioUrl in its details', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.silent);
    assert.equal(details.audioUrl, undefined);
    for (const url of [
      `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.silent}/audio.m4a`,
      `${deliveryUrl}/${videos.silent}/audio.m4a`,
    ]) {
      const response = await fetch(url);
      assert.equal(response.status, 404, url);
      const body = (await response.json()) as { code: string; status: number; detail: string };
      assert.deepEqual([body.status, body.code], [404, 'audio_not_found']);
      assert.match(body.detail, /no sound/);
    }
  });
});

/**
 * A page that plays `?src=` with `?player=` (hls.js or shaka) and lets the test switch its audio
 * track: `window.audio.tracks` (language and default of each, once the player knows them),
 * `window.switchAudio(language)`, and the player's fatal errors in `window.audio.errors`.
 */
const audioSwitchPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Kino audio tracks</title>
<script src="/hls.min.js"></script><script src="/shaka-player.compiled.js"></script></head>
<body><video id="v" muted playsinline></video>
<script>
  const state = { tracks: [], errors: [], ended: false };
  window.audio = state;
  const video = document.getElementById('v');
  video.addEventListener('ended', () => { state.ended = true; });
  const query = new URLSearchParams(location.search);
  const play = () => video.play().catch((error) => state.errors.push('play(): ' + error.message));
  if (query.get('player') === 'hls.js') {
    const hls = new Hls();
    hls.on(Hls.Events.ERROR, (_event, data) => data.fatal && state.errors.push(data.type + '/' + data.details));
    hls.on(Hls.Events.AUDIO_TRACKS_UPDATED, () => {
      state.tracks = hls.audioTracks.map((t) => ({ language: t.lang, isDefault: t.default }));
    });
    hls.on(Hls.Events.MANIFEST_PARSED, play);
    window.switchAudio = (language) => { hls.audioTrack = hls.audioTracks.findIndex((t) => t.lang === language); };
    hls.loadSource(query.get('src'));
    hls.attachMedia(video);
  } else {
    shaka.polyfill.installAll();
    const player = new shaka.Player();
    player.addEventListener('error', (event) => state.errors.push('shaka ' + event.detail.code + ' ' + JSON.stringify(event.detail.data)));
    window.switchAudio = (language) => {
      player.selectAudioTrack(player.getAudioTracks().find((t) => t.language === language));
    };
    player.attach(video).then(() => player.load(query.get('src'))).then(() => {
      state.tracks = player.getAudioTracks().map((t) => ({ language: t.language, isDefault: t.active }));
      play();
    }, (error) => state.errors.push('shaka ' + error.code));
  }
</script></body></html>`;

describe('a source with two audio tracks', () => {
  const masterOf = () => `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.dubbed}/master.m3u8`;

  test('is offered as two alternate audio renditions, each its own track, English the default', async () => {
    const text = await (await fetch(masterOf())).text();
    const media = text.split('\n').filter((line) => line.startsWith('#EXT-X-MEDIA:TYPE=AUDIO'));
    assert.deepEqual(
      media.map((line) => [
        /LANGUAGE="([^"]*)"/.exec(line)?.[1],
        /NAME="([^"]*)"/.exec(line)?.[1],
        /DEFAULT=(YES|NO)/.exec(line)?.[1],
        /AUTOSELECT=(YES|NO)/.exec(line)?.[1],
        /GROUP-ID="([^"]*)"/.exec(line)?.[1],
      ]),
      [
        ['en', 'English', 'YES', 'YES', 'audio'],
        ['es', 'Spanish', 'NO', 'YES', 'audio'],
      ],
      text,
    );
    const variants = text.split('\n').filter((line) => line.startsWith('#EXT-X-STREAM-INF:'));
    assert.ok(variants.length > 0, text);
    for (const variant of variants) {
      assert.match(variant, /AUDIO="audio"/, 'every variant names the group');
      assert.match(variant, /CODECS="avc1\.[0-9a-f]+,mp4a\.40\.2"/, 'and lists the audio codec');
    }
    // Each rendition is its own track: decoded, the tone of that track, the picture's length (the
    // Spanish one padded with silence).
    const renditions = media.map((line) => new URL(/URI="([^"]*)"/.exec(line)![1]!, masterOf()).href);
    const heard = await Promise.all(renditions.map((url) => toneOf(url)));
    assert.ok(
      Math.abs(heard[0]! - tones.en) < 20 && Math.abs(heard[1]! - tones.es) < 20,
      `tones ${heard.join(', ')} Hz`,
    );
    for (const url of renditions) {
      const seconds = await decodedAudioSeconds(url);
      assert.ok(Math.abs(seconds - dubbedSeconds) < 0.1, `${url}: ${seconds} s`);
    }
    // The pictures carry no sound of their own.
    const picture = new URL(
      text.split('\n').find((line) => line.startsWith('video-') && !line.includes('0p-a'))!,
      masterOf(),
    );
    assert.deepEqual(
      (await probeOf(picture.href)).streams.map((s) => s.codec_type),
      ['video'],
    );
  });

  for (const player of webPlayers) {
    test(`${player} in Chromium starts in English and switches to Spanish`, async () => {
      await switchAudio(player, masterOf(), {
        tracks: [
          ['en', true],
          ['es', false],
        ],
        to: { language: 'es', key: '0p-a2' },
      });
    });
  }
});

/**
 * Plays `master` in `player` in Chromium: it starts on English (`0p-a1`'s segments) with `tracks`
 * offered and none of `to`'s segments, then, told to switch, fetches `to`'s, with no error.
 */
async function switchAudio(
  player: (typeof webPlayers)[number],
  master: string,
  {
    tracks,
    to,
    toEnd = false,
  }: { tracks: [string, boolean][]; to: { language: string; key: string }; toEnd?: boolean },
): Promise<void> {
  const pageHost = await startPageHost({ '/audio': audioSwitchPage });
  const tab = await browser.newPage();
  const requested: string[] = [];
  tab.on('request', (request: Request) => requested.push(request.url()));
  const audioSegment = (key: string) => (request: Request) => request.url().includes(`/video-${key}/seg-`);
  try {
    const english = tab.waitForRequest(audioSegment('0p-a1'), { timeout: 60_000 });
    await tab.goto(`${pageHost.origin}/audio?${new URLSearchParams({ player, src: master })}`);
    await english;
    const state = await pageState(tab);
    assert.deepEqual(state.errors, []);
    assert.deepEqual(
      state.tracks.map((t) => [t.language, t.isDefault]),
      tracks,
    );
    assert.ok(
      !requested.some((url) => url.includes(`/video-${to.key}/seg-`)),
      `no ${to.language} segment before the switch`,
    );
    const switched = tab.waitForRequest(audioSegment(to.key), { timeout: 60_000 });
    await tab.evaluate(
      (language) => (window as unknown as { switchAudio: (language: string) => void }).switchAudio(language),
      to.language,
    );
    await switched;
    if (toEnd) {
      // Four times real time: the end is what is checked, not the seconds of play before it.
      await tab.evaluate(() => ((document.getElementById('v') as HTMLVideoElement).playbackRate = 4));
      await tab.waitForFunction(() => (window as unknown as { audio: { ended: boolean } }).audio.ended, undefined, {
        timeout: 60_000,
      });
    }
    assert.deepEqual((await pageState(tab)).errors, []);
  } finally {
    await tab.close();
    await pageHost.close();
  }
}

/** Polls the video's added tracks until `language`'s is no longer processing: that track. */
async function settledAudioTrack(videoId: string, language: string): Promise<AudioTrack> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const track = (await farm.kino.videos.listAudioTracks(farm.orgId, videoId)).find((t) => t.language === language);
    assert.ok(track, `the ${language} track is listed`);
    if (track.status !== 'processing') return track;
    assert.ok(Date.now() < deadline, `the ${language} track of ${videoId} is still processing after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The API's refusal of `call`, as `status code`. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof APIError) return `${error.status} ${error.code}`;
    throw error;
  }
  return 'accepted';
}

// After 'a source with two audio tracks' (vitest runs a file's tests in order): the video it
// checked with two tracks gets a third here.
describe('a track added to a ready video', () => {
  const masterOf = () => `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.dubbed}/master.m3u8`;

  test("a French file becomes a third alternate rendition of the video's length, offered in the master; the pictures untouched", async () => {
    const before = await (await fetch(masterOf())).text();
    const added = await farm.kino.videos.addAudioTrack(farm.orgId, videos.dubbed, {
      storagePath: await uploadFile(files.french, 'video/mp4'),
      language: 'fr',
    });
    assert.deepEqual(added, { language: 'fr', name: 'French', default: false, status: 'processing' });
    assert.equal((await settledAudioTrack(videos.dubbed, 'fr')).status, 'ready');
    const text = await (await fetch(masterOf())).text();
    const media = text.split('\n').filter((line) => line.startsWith('#EXT-X-MEDIA:TYPE=AUDIO'));
    assert.deepEqual(
      media.map((line) => [
        /LANGUAGE="([^"]*)"/.exec(line)?.[1],
        /NAME="([^"]*)"/.exec(line)?.[1],
        /DEFAULT=(YES|NO)/.exec(line)?.[1],
        /URI="[^"]*video-(0p-a\d+)\.m3u8/.exec(line)?.[1],
      ]),
      [
        ['en', 'English', 'YES', '0p-a1'],
        ['es', 'Spanish', 'NO', '0p-a2'],
        ['fr', 'French', 'NO', '0p-a3'],
      ],
      text,
    );
    // The pictures are the same renditions as before, and every frame of the lowest still decodes.
    const pictures = (master: string) => master.split('\n').filter((line) => line.startsWith('video-'));
    assert.deepEqual(pictures(text), pictures(before));
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-count_frames',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=nb_read_frames',
      '-of',
      'csv=p=0',
      new URL(pictures(text)[0]!, masterOf()).href,
    ]);
    // (The HLS demuxer lists the stream once per program: every line is its count.)
    const counts = stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
    assert.ok(
      counts.length > 0 && counts.every((n) => n === dubbedSeconds * 25),
      `every frame of the picture: ${stdout}`,
    );
    // The added rendition: the French tone, cut at the video's duration (the file is longer).
    const french = new URL(/URI="([^"]*)"/.exec(media[2]!)![1]!, masterOf()).href;
    assert.ok(Math.abs((await toneOf(french)) - tones.fr) < 20, 'the French tone');
    const seconds = await decodedAudioSeconds(french);
    assert.ok(Math.abs(seconds - dubbedSeconds) < 0.1, `${french}: ${seconds} s of ${dubbedSeconds}`);
  });

  for (const player of webPlayers) {
    test(`${player} in Chromium switches from English to the added French track`, async () => {
      await switchAudio(player, masterOf(), {
        tracks: [
          ['en', true],
          ['es', false],
          ['fr', false],
        ],
        to: { language: 'fr', key: '0p-a3' },
      });
    });
  }

  test('a file with no sound fails the track with the reason; it is never offered, and is removed', async () => {
    const storagePath = await uploadFile(files.silent, 'video/mp4');
    await farm.kino.videos.addAudioTrack(farm.orgId, videos.dubbed, { storagePath, language: 'de' });
    const failed = await settledAudioTrack(videos.dubbed, 'de');
    assert.deepEqual([failed.status, failed.reason], ['failed', 'the file has no audio stream']);
    assert.doesNotMatch(await (await fetch(masterOf())).text(), /LANGUAGE="de"/);
    assert.deepEqual(await farm.kino.videos.removeAudioTrack(farm.orgId, videos.dubbed, 'de'), {
      language: 'de',
      status: 'deleted',
    });
    assert.equal(
      await refusal(farm.kino.videos.removeAudioTrack(farm.orgId, videos.dubbed, 'de')),
      '404 audio_track_not_found',
    );
    // Its file went with it: the same storagePath again finds nothing to probe.
    await farm.kino.videos.addAudioTrack(farm.orgId, videos.dubbed, { storagePath, language: 'de' });
    const again = await settledAudioTrack(videos.dubbed, 'de');
    assert.equal(again.status, 'failed');
    assert.notEqual(
      again.reason,
      'the file has no audio stream',
      `the file is gone, not probed again: ${again.reason}`,
    );
    await farm.kino.videos.removeAudioTrack(farm.orgId, videos.dubbed, 'de');
  });

  test('refused: a missing video, a bad language, a video not ready yet, a silent or audio-only video', async () => {
    const storagePath = await uploadFile(files.french, 'video/mp4');
    const add = (videoId: string, language = 'fr') =>
      refusal(farm.kino.videos.addAudioTrack(farm.orgId, videoId, { storagePath, language }));
    assert.equal(await add('vid_doesnotexist'), '404 video_not_found');
    assert.equal(await add(videos.dubbed, 'not a language!'), '400 invalid_audio_track');
    assert.equal(await add(videos.silent), '409 audio_tracks_unsupported');
    assert.equal(await add(videos.song), '409 audio_tracks_unsupported');
    // Processing takes seconds: the call right after process finds it transcoding.
    const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
      storagePath: await uploadFile(files.silent, 'video/mp4'),
      videoQuality: 'standard',
      allowPublicAccess: false,
      compressionRatio: 'ultrafast',
    });
    assert.equal(await add(videoID), '409 video_not_ready');
    // A video is deleted once it is ready or failed: none is left to the farm's stop.
    await farm.waitForStatus(videoID, 'ready');
    await farm.kino.videos.delete(farm.orgId, videoID);
  });
});

describe('a track added to a video whose sound is in its pictures', () => {
  const base = () => `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.muxed}`;
  /** The master as it was before the track: what a viewer who started then still plays. */
  let first = '';
  const pictures = (master: string) => master.split('\n').filter((line) => line.startsWith('video-'));
  const durations = async (playlist: string) =>
    mediaPlaylistDurations(await (await fetch(new URL(playlist, `${base()}/`))).text());

  test('its sound becomes an alternate rendition beside the Spanish track, its pictures copies without it cut where they were', async () => {
    first = await (await fetch(`${base()}/master.m3u8`)).text();
    assert.doesNotMatch(first, /TYPE=AUDIO/, 'sound muxed in the pictures');
    const added = await farm.kino.videos.addAudioTrack(farm.orgId, videos.muxed, {
      storagePath: await uploadFile(files.spanish, 'video/mp4'),
      language: 'es',
    });
    assert.equal(added.status, 'processing');
    const spanish = await settledAudioTrack(videos.muxed, 'es');
    assert.equal(spanish.status, 'ready', spanish.reason);
    const text = await (await fetch(`${base()}/master.m3u8`)).text();
    const media = text.split('\n').filter((line) => line.startsWith('#EXT-X-MEDIA:TYPE=AUDIO'));
    assert.deepEqual(
      media.map((line) => [
        /LANGUAGE="([^"]*)"/.exec(line)?.[1],
        /NAME="([^"]*)"/.exec(line)?.[1],
        /DEFAULT=(YES|NO)/.exec(line)?.[1],
        /URI="[^"]*video-(0p-a\d+)\.m3u8/.exec(line)?.[1],
      ]),
      [
        ['en', 'English', 'YES', '0p-a1'],
        ['es', 'Spanish', 'NO', '0p-a2'],
      ],
      text,
    );
    // Every picture is its original's copy without sound, on the same cuts, every segment as long.
    const originals = pictures(first);
    assert.deepEqual(
      pictures(text),
      originals.map((line) => line.replace(/^video-(\d+p)\.m3u8/, 'video-$1-v.m3u8')),
      text,
    );
    for (const variant of text.split('\n').filter((line) => line.startsWith('#EXT-X-STREAM-INF:'))) {
      assert.match(variant, /AUDIO="audio"/);
      assert.match(variant, /CODECS="avc1\.[0-9a-f]+,mp4a\.40\.2"/);
    }
    for (const [index, copy] of pictures(text).entries()) {
      const [copied, original] = await Promise.all([durations(copy), durations(originals[index]!)]);
      assert.ok(copied.length === 2, `${copy}: ${copied.join(', ')}`);
      assert.deepEqual(copied, original, copy);
      const probe = await probeOf(new URL(copy, `${base()}/`).href);
      assert.deepEqual(
        [...new Set(probe.streams.map((s) => s.codec_type))],
        ['video'],
        `${copy} holds the picture alone`,
      );
    }
    // Its own sound, from the source (440 Hz), and the Spanish track (880 Hz), each the video's length.
    const renditions = media.map((line) => new URL(/URI="([^"]*)"/.exec(line)![1]!, `${base()}/`).href);
    const heard = await Promise.all(renditions.map((url) => toneOf(url)));
    assert.ok(Math.abs(heard[0]! - tones.en) < 20 && Math.abs(heard[1]! - tones.es) < 20, `tones ${heard.join(', ')}`);
    for (const url of renditions) {
      const seconds = await decodedAudioSeconds(url);
      assert.ok(Math.abs(seconds - dubbedSeconds) < 0.1, `${url}: ${seconds} s`);
    }
    // The details list the ladder once (no copies), and the video's own sound and the track as audio renditions.
    const details = await farm.kino.videos.get(farm.orgId, videos.muxed);
    assert.deepEqual(
      details.encodings.map((e) => e.key),
      ['0p-a1', '0p-a2', ...originals.map((line) => /^video-(\d+p)\.m3u8/.exec(line)![1]!)],
    );
    // A second track joins the same group: the separation is not made again.
    const french = await farm.kino.videos.addAudioTrack(farm.orgId, videos.muxed, {
      storagePath: await uploadFile(files.french, 'video/mp4'),
      language: 'fr',
    });
    assert.equal(french.status, 'processing');
    assert.equal((await settledAudioTrack(videos.muxed, 'fr')).status, 'ready');
    const third = await (await fetch(`${base()}/master.m3u8`)).text();
    assert.deepEqual(pictures(third), pictures(text));
    assert.match(third, /LANGUAGE="fr".*URI="[^"]*video-0p-a3\.m3u8/);
    assert.equal((await farm.kino.videos.removeAudioTrack(farm.orgId, videos.muxed, 'fr')).status, 'deleted');
  });

  for (const player of webPlayers) {
    test(`${player} in Chromium starts on its own sound, switches to the Spanish track and plays to the end`, async () => {
      await switchAudio(player, `${base()}/master.m3u8`, {
        tracks: [
          ['en', true],
          ['es', false],
        ],
        to: { language: 'es', key: '0p-a2' },
        toEnd: true,
      });
    });
  }

  test('the master a viewer loaded before the track still plays: its renditions with their sound stay', async () => {
    assert.ok(first, 'the first test read it');
    // That master as the viewer holds it: its variants at their addresses.
    const held = first
      .split('\n')
      .map((line) => (line.startsWith('video-') ? new URL(line, `${base()}/`).href : line))
      .join('\n');
    const pageHost = await startPageHost({ '/first.m3u8': held });
    try {
      const outcome = await playThrough(browser, pageHost, {
        player: 'hls.js',
        src: `${pageHost.origin}/first.m3u8`,
        rate: 4,
      });
      assert.deepEqual([outcome.ended, outcome.errors], [true, []]);
      const lowest = new URL(pictures(first)[0]!, `${base()}/`).href;
      assert.deepEqual((await probeOf(lowest)).streams.map((s) => s.codec_type).sort(), ['audio', 'video']);
      assert.ok(Math.abs((await decodedAudioSeconds(lowest)) - dubbedSeconds) < 0.1);
    } finally {
      await pageHost.close();
    }
  });

  test('its downloads and a clip cut after the separation keep the picture with its sound', async () => {
    await assertAudioFile(`${base()}/audio.m4a`, dubbedSeconds);
    const quality = /^video-(\d+p)\.m3u8/.exec(pictures(first)[0]!)![1]!;
    const download = join(workDir, 'muxed-download.mp4');
    await writeFile(download, Buffer.from(await (await fetch(`${base()}/video-${quality}.mp4`)).arrayBuffer()));
    assert.deepEqual((await probeOf(download)).streams.map((s) => s.codec_type).sort(), ['audio', 'video']);
    // A segment-accurate clip plays the originals, with their sound, from the first master.
    const { videoID } = await farm.kino.videos.createClip(farm.orgId, videos.muxed, { startTime: 0, endTime: 6 });
    await farm.waitForStatus(videoID, 'ready');
    const clipBase = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoID}`;
    const clipMaster = await (await fetch(`${clipBase}/master.m3u8`)).text();
    const variant = new URL(pictures(clipMaster)[0]!, `${clipBase}/`).href;
    assert.deepEqual((await probeOf(variant)).streams.map((s) => s.codec_type).sort(), ['audio', 'video']);
    assert.ok(Math.abs((await decodedAudioSeconds(variant)) - 6) < 0.1);
  });
});

async function pageState(tab: Awaited<ReturnType<Browser['newPage']>>) {
  return tab.evaluate(
    () =>
      (window as unknown as { audio: { tracks: { language: string; isDefault: boolean }[]; errors: string[] } }).audio,
  );
}
