// Captions from speech end to end (issue 57, docs/decisions/captions.md): espeak-ng speaks known
// English sentences, with silences between them, into a short video; the process call asks for
// `generatedSubtitles`; the shared farm's node (whose speech engine is Whisper tiny.en) transcribes
// it as slot-taking jobs, in three pieces (the shared farm's CAPTIONS_PIECE_SECONDS is 8) joined at
// their seams; the track appears with `source: "generated"`. The test computes the word error rate of
// the track's words against the sentences, no worse than the engine's on the whole sound, one cue a
// sentence (a word lost or doubled at a seam would show), each starting within 0.5 s of it; Chromium
// with hls.js shows each sentence's cue half a second into it, and none half a second before it; reads the transcript as text and as JSON; refuses a language the engine cannot do
// (400 naming the field); and an uploaded file replaces the generated track, as any track.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { CaptionTrack } from '@kino/sdk';
import { launchChromium, startPageHost, type PageHost } from '@kino/test/support/players';
import { findMultilingualSpeechEngine, findSpeechEngine } from '@kino/dev';
import { workflowIds } from '@kino/proto/contract';
import {
  englishSentences,
  hearWithEngine,
  speechCorpus,
  makeSpeechVideo,
  speakSentences,
  wordErrorRate,
  type SpokenTrack,
} from '@kino/test/support/speech';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';

let farm: FarmTenant;
let workDir: string;
let pageHost: PageHost;
let browser: Browser;
let spoken: SpokenTrack;
let videoId: string;
/** The engine's word error rate on the whole sound, heard directly: what the pieces must match. */
let wholeWer: Promise<number>;
/** Setup's multilingual model (Whisper base) on the corpus's German, Italian and Spanish, heard directly: WER by language. */
let otherLanguages: Promise<Record<string, { wer: number; heard: string; language: string }>>;

// Plays `?src=` with hls.js at twice real time, the English subtitles track on (a generated track is
// never the default, so the page picks it), and records for every cue the playback time it became
// active at (as captions-playback.test.ts does for uploaded tracks).
const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Kino generated captions</title><script src="/hls.min.js"></script></head>
<body><video id="v" muted playsinline></video>
<script>
  const outcome = { ended: false, errors: [], tracks: [], cues: [], events: [] };
  window.playback = outcome;
  const video = document.getElementById('v');
  const hls = new Hls();
  hls.on(Hls.Events.ERROR, (_event, data) => outcome.errors.push(data.type + '/' + data.details + (data.fatal ? ' (fatal)' : '')));
  hls.on(Hls.Events.MANIFEST_PARSED, (_event, data) => {
    outcome.tracks = data.subtitleTracks.map((t) => t.lang);
    hls.subtitleDisplay = true;
    hls.subtitleTrack = data.subtitleTracks.findIndex((t) => t.lang === 'en');
    video.playbackRate = 2;
    video.play().catch((error) => outcome.errors.push('play(): ' + error.message + ' (fatal)'));
  });
  video.textTracks.addEventListener('addtrack', (event) => {
    // Turned on as a viewer's menu does: hls.js follows the element's text tracks (its captions menu too).
    if (event.track.language === 'en') event.track.mode = 'showing';
    event.track.addEventListener('cuechange', () => {
    for (const cue of Array.from(event.track.activeCues || [])) {
      if (!outcome.cues.some((seen) => seen.text === cue.text)) outcome.cues.push({ text: cue.text, at: video.currentTime });
    }
    });
  });
  hls.on(Hls.Events.SUBTITLE_TRACK_SWITCH, (_event, data) => outcome.events.push('switch ' + data.id));
  hls.on(Hls.Events.SUBTITLE_FRAG_PROCESSED, (_event, data) => outcome.events.push('frag ' + data.frag.sn + ' ' + data.success));
  hls.on(Hls.Events.CUES_PARSED, (_event, data) => outcome.events.push('cues ' + data.cues.map((c) => c.startTime.toFixed(2)).join(',')));
  video.addEventListener('ended', () => {
    outcome.events.push('tracks ' + Array.from(video.textTracks).map((t) => t.language + '/' + t.mode + '/' + (t.cues ? t.cues.length : 'null')).join(' '));
    outcome.ended = true;
  });
  hls.loadSource(new URLSearchParams(location.search).get('src'));
  hls.attachMedia(video);
</script></body></html>`;

interface Outcome {
  ended: boolean;
  errors: string[];
  tracks: string[];
  /** Each cue's text and the playback time it became active at, in order. */
  cues: { text: string; at: number }[];
  /** hls.js's subtitle events and the element's text tracks at the end, for a failure's message. */
  events: string[];
}

/** Polls the video's tracks until one for `language` made by `source` is there. */
async function waitForTrack(
  language: string,
  source: CaptionTrack['source'],
  timeoutMs = 180_000,
): Promise<CaptionTrack> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tracks = await farm.kino.videos.listCaptions(farm.orgId, videoId);
    const track = tracks.find((t) => t.language === language && t.source === source);
    if (track) return track;
    if (Date.now() > deadline)
      throw new Error(`no ${source} ${language} track after ${timeoutMs} ms: ${JSON.stringify(tracks)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A raw API call, to see the error envelope as a client gets it. */
interface ErrorBody {
  code: string;
  detail: string;
  errors: { location: string }[];
}

async function post(path: string, body: unknown): Promise<{ status: number; body: ErrorBody }> {
  const response = await fetch(`${farm.apiUrl}/${farm.orgId}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': farm.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ErrorBody };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-speech-'));
  [farm, spoken] = await Promise.all([
    joinSharedFarm('speech-captions'),
    speakSentences({ sentences: englishSentences, dir: workDir }),
  ]);
  const engine = findSpeechEngine();
  assert.ok(engine, 'no speech engine installed (dev/setup/setup.sh installs it)');
  wholeWer = hearWithEngine(engine, spoken.path, 'en').then((whole) =>
    wordErrorRate(englishSentences.join(' '), whole.text),
  );
  const multilingual = findMultilingualSpeechEngine();
  assert.ok(multilingual, 'no multilingual speech model installed (dev/setup/setup.sh installs Whisper base)');
  otherLanguages = Promise.all(
    (['de', 'it', 'es'] as const).map(async (language) => {
      const { sentences, voice } = speechCorpus[language];
      const dir = await mkdtemp(join(workDir, `${language}-`));
      const heard = await hearWithEngine(
        multilingual,
        (await speakSentences({ sentences, voice, dir })).path,
        language,
      );
      const wer = wordErrorRate(sentences.join(' '), heard.text);
      return [language, { wer, heard: heard.text, language: heard.language }] as const;
    }),
  ).then(Object.fromEntries);
  // Awaited by the tests that use them; a failure before then is theirs to report, not unhandled.
  for (const pending of [wholeWer, otherLanguages]) pending.catch(() => undefined);
  const video = await readFile(await makeSpeechVideo(spoken.path, join(workDir, 'speech.mp4')));
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: 'speech.mp4',
    fileSize: video.length,
    contentType: 'video/mp4',
  });
  await farm.kino.uploads.putFile(ticket, video, 'video/mp4');
  ({ videoID: videoId } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess: true,
    compressionRatio: 'superfast',
    generatedSubtitles: [{ language: 'auto' }],
  }));
  await farm.waitForStatus(videoId, 'ready', 240_000);
});

afterAll(async () => {
  await browser?.close();
  await pageHost?.close();
  await farm?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

test('the speech becomes an English track, source generated: its words within the WER bound, each cue at its sentence', async () => {
  const track = await waitForTrack('en', 'generated');
  assert.equal(track.label, 'English');
  const file = await (await fetch(track.url)).text();
  assert.match(file, /^WEBVTT/);

  const transcript = await farm.kino.videos.transcript(farm.orgId, videoId, { language: 'en', format: 'json' });
  assert.equal(transcript.source, 'generated');
  const said = englishSentences.join(' ');
  const wer = wordErrorRate(said, transcript.text);
  const whole = await wholeWer;
  console.log(
    `speech-captions: WER ${(wer * 100).toFixed(1)} % in pieces, ${(whole * 100).toFixed(1)} % whole (heard: ${JSON.stringify(transcript.text)})`,
  );
  assert.ok(wer <= 0.15, `WER ${(wer * 100).toFixed(1)} % over 15 %: heard ${JSON.stringify(transcript.text)}`);
  // The pieces hear the video's AAC sound, each in a window of its own; the whole hears espeak-ng's
  // WAV at once: one word may come out otherwise ("jump" for "jumps" in one run of many). A seam that
  // drops or doubles what the pieces overlap costs more than one word.
  const oneWord = 1 / said.split(/\s+/).length;
  assert.ok(
    wer <= whole + oneWord + 1e-9,
    `WER ${(wer * 100).toFixed(1)} % in pieces, more than a word worse than ${(whole * 100).toFixed(1)} % whole`,
  );

  // It was transcribed in three pieces, whose words are gone once joined.
  const run = await farm.temporal.workflow.getHandle(workflowIds.generateCaptions(videoId, 'auto')).result();
  assert.equal((run as { pieces: number }).pieces, 3, JSON.stringify(run));
  assert.deepEqual(await farm.storage.list(`videos/${videoId}/work/captions/`), []);

  // A cue per sentence (each ends at its full stop, or at the 1.5 s silence after it), each starting
  // within 0.5 s of the moment espeak-ng began to speak it.
  const cues = transcript.cues!;
  assert.equal(cues.length, englishSentences.length, JSON.stringify(cues));
  console.log(
    `speech-captions: cue starts off their sentences by ${cues.map((cue, i) => (cue.startSeconds - spoken.starts[i]!).toFixed(2)).join(', ')} s`,
  );
  cues.forEach((cue, i) => {
    const off = Math.abs(cue.startSeconds - spoken.starts[i]!);
    assert.ok(
      off <= 0.5,
      `cue ${i} "${cue.text}" starts at ${cue.startSeconds} s, its sentence at ${spoken.starts[i]} s`,
    );
    assert.ok(
      wordErrorRate(englishSentences[i]!, cue.text) <= 0.5,
      `cue ${i} "${cue.text}" is not "${englishSentences[i]}"`,
    );
  });

  const text = await farm.kino.videos.transcript(farm.orgId, videoId);
  assert.deepEqual(text, { language: 'en', source: 'generated', text: transcript.text });
  assert.equal(text.text.split('\n').length, cues.length, 'the text format has one cue a line');
});

test('hls.js shows each generated cue while its sentence is spoken, within 0.5 s of its start', async () => {
  await waitForTrack('en', 'generated');
  [pageHost, browser] = await Promise.all([startPageHost({ '/captions': page }), launchChromium()]);
  const src = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
  const tab = await browser.newPage();
  let outcome: Outcome;
  try {
    await tab.goto(`${pageHost.origin}/captions?src=${encodeURIComponent(src)}`);
    await tab.waitForFunction(
      () => {
        const played = (window as unknown as { playback: Outcome }).playback;
        return played.ended || played.errors.some((e) => e.endsWith('(fatal)'));
      },
      undefined,
      { timeout: 60_000, polling: 100 },
    );
    outcome = await tab.evaluate(() => (window as unknown as { playback: Outcome }).playback);
  } finally {
    await tab.close();
  }
  assert.deepEqual(outcome.errors, []);
  assert.deepEqual(outcome.tracks, ['en']);
  console.log(
    `speech-captions: hls.js showed the cues ${outcome.cues.map((cue, i) => (cue.at - spoken.starts[i]!).toFixed(2)).join(', ')} s after their sentences began`,
  );
  assert.equal(outcome.cues.length, englishSentences.length, JSON.stringify(outcome));
  outcome.cues.forEach((cue, i) => {
    assert.ok(wordErrorRate(englishSentences[i]!, cue.text) <= 0.5, `cue ${i} "${cue.text}"`);
    const off = cue.at - spoken.starts[i]!;
    assert.ok(Math.abs(off) <= 0.5, `"${cue.text}" shown at ${cue.at} s, its sentence began at ${spoken.starts[i]} s`);
  });
});

test('other languages: the multilingual model setup installs hears German, Italian and Spanish within the 25 % goal', async () => {
  const heard = await otherLanguages;
  for (const [language, { wer, heard: text }] of Object.entries(heard))
    console.log(`speech-captions: ${language} WER ${(wer * 100).toFixed(1)} % (heard: ${JSON.stringify(text)})`);
  // Measured 7.8 %, 19.4 % and 14.9 % (docs/decisions/captions.md, "Languages"); the same sound and
  // model give the same words every run, so the bound is the goal itself.
  for (const [language, { wer, heard: text, language: answered }] of Object.entries(heard)) {
    assert.equal(answered, language);
    assert.ok(wer <= 0.25, `${language} WER ${(wer * 100).toFixed(1)} % over 25 %: ${text}`);
  }
});

test('a language the installed engine cannot do answers 400 naming the field', async () => {
  const generate = await post(`/videos/${videoId}/captions/generate`, { language: 'fr' });
  assert.equal(generate.status, 400, JSON.stringify(generate.body));
  assert.equal(generate.body.code, 'unsupported_language');
  assert.deepEqual(
    generate.body.errors.map((e) => e.location),
    ['body.language'],
  );
  assert.match(generate.body.detail, /transcribe en, not "fr"/);

  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: 'x.mp4',
    fileSize: 10,
    contentType: 'video/mp4',
  });
  const processed = await post(`/environments/${farm.envId}/videos/process`, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess: false,
    generatedSubtitles: [{ language: 'en' }, { language: 'de', label: 'Deutsch' }],
  });
  assert.equal(processed.status, 400, JSON.stringify(processed.body));
  assert.equal(processed.body.code, 'unsupported_language');
  assert.equal(processed.body.errors[0]!.location, 'body.generatedSubtitles.1.language');
});

test('an uploaded file replaces the generated track, and generating again puts a generated one back', async () => {
  await waitForTrack('en', 'generated');
  const uploaded = await farm.kino.videos.addCaption(farm.orgId, videoId, {
    language: 'en',
    content: 'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nWritten by a person.\n',
  });
  assert.equal(uploaded.source, 'uploaded');
  const transcript = await farm.kino.videos.transcript(farm.orgId, videoId, { language: 'en' });
  assert.deepEqual(transcript, { language: 'en', source: 'uploaded', text: 'Written by a person.' });

  const generating = await farm.kino.videos.generateCaptions(farm.orgId, videoId, { language: 'EN' });
  assert.deepEqual(generating, { language: 'en', status: 'generating' });
  await waitForTrack('en', 'generated');
  const again = await farm.kino.videos.transcript(farm.orgId, videoId, { language: 'en' });
  assert.ok(wordErrorRate(englishSentences.join(' '), again.text) <= 0.15, again.text);
});
