import assert from 'node:assert/strict';
import { test } from 'vitest';
import { parseCaptionFile, renderWebVtt } from './captions.ts';
import { cueLimits, cuesFromWords, transcriptOf, type SpokenWord } from './transcripts.ts';

const spoken = (text: string, start: number, step = 0.3): SpokenWord[] =>
  text
    .split(' ')
    .map((word, i) => ({ startSeconds: start + i * step, endSeconds: start + i * step + step, text: ` ${word}` }));

test('a cue ends at a sentence end and starts at its first word', () => {
  const cues = cuesFromWords([...spoken('The quick brown fox.', 0.5), ...spoken('It jumps!', 2)]);
  assert.deepEqual(
    cues.map((cue) => [cue.startSeconds, cue.text]),
    [
      [0.5, 'The quick brown fox.'],
      [2, 'It jumps!'],
    ],
  );
  assert.equal(cues[0]!.endSeconds, 0.5 + 3 * 0.3 + 0.3);
});

test('a long silence, a long sentence and a long time each end a cue', () => {
  assert.equal(cuesFromWords([...spoken('before the pause', 0), ...spoken('after it', 3)]).length, 2);
  const long = spoken(Array.from({ length: 30 }, () => 'word').join(' '), 0, 0.2);
  const cues = cuesFromWords(long);
  assert.ok(cues.length >= 2);
  for (const cue of cues) {
    assert.ok(cue.text.length <= cueLimits.maxCharacters, cue.text);
    assert.ok(cue.endSeconds - cue.startSeconds <= cueLimits.maxSeconds);
  }
  assert.equal(cues.map((cue) => cue.text).join(' '), long.map((w) => w.text.trim()).join(' '));
});

test('a track parses back to the same transcript, tags removed', () => {
  const vtt = renderWebVtt({ preamble: [], cues: cuesFromWords(spoken('Hello there.', 1)) });
  const transcript = transcriptOf(parseCaptionFile(vtt, 'vtt'), { language: 'en', source: 'generated' });
  assert.equal(transcript.text, 'Hello there.');
  const tagged = parseCaptionFile('WEBVTT\n\n00:01.000 --> 00:02.000\n<v Roger>Hi &amp;\nbye</v>\n', 'vtt');
  assert.equal(transcriptOf(tagged, { language: 'en', source: 'uploaded' }).text, 'Hi & bye');
});
