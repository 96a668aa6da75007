// bench/captions: the speech engine of the encode nodes (encode-node/transcribe/transcribe.py,
// faster-whisper with the model NODE_TRANSCRIBE_MODEL names, by default setup's Whisper tiny.en) on
// sentences espeak-ng speaks (test/support/speech.ts), clean and under pink noise and under music at
// 10 dB SNR. Prints, per condition, the word error rate against the sentences and the real-time
// factor per core (the engine's CPU seconds, model load included, over the audio's seconds, on one
// thread), against the goals of issue 57: WER <= 15 % clean English (<= 25 % noisy), <= 0.5x real
// time per core. Other languages are not measured: the installed model is English only
// (docs/decisions/captions.md says what a multilingual one needs).
//
//   npm run bench:captions
//   KINO_TRANSCRIBE_MODEL=/path/to/ct2-model npm run bench:captions
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findSpeechEngine } from '@kino/dev';
import {
  englishSentences,
  hearWithEngine,
  mixBackground,
  speakSentences,
  wordErrorRate,
} from '@kino/test/support/speech';

const goals = { cleanWer: 0.15, noisyWer: 0.25, realTimePerCore: 0.5 };

const engine = findSpeechEngine();
if (!engine) throw new Error('no speech engine: run `bash dev/setup/setup.sh` (or set KINO_TRANSCRIBE_MODEL)');
const dir = await mkdtemp(join(tmpdir(), 'kino-bench-captions-'));
try {
  const spoken = await speakSentences({ sentences: englishSentences, dir });
  const conditions: [string, string, number][] = [
    ['clean', spoken.path, goals.cleanWer],
    [
      'noise 10 dB',
      await mixBackground(spoken, { kind: 'noise', snrDb: 10, path: join(dir, 'noisy.wav') }),
      goals.noisyWer,
    ],
    [
      'music 10 dB',
      await mixBackground(spoken, { kind: 'music', snrDb: 10, path: join(dir, 'music.wav') }),
      goals.noisyWer,
    ],
  ];
  console.log(
    `model ${engine.model}; ${spoken.durationSeconds.toFixed(1)} s of speech, ${englishSentences.length} sentences`,
  );
  console.log('condition      WER      goal   RT/core  goal');
  for (const [name, audio, werGoal] of conditions) {
    const result = await hearWithEngine(engine, audio, 'en');
    const heard = result.text;
    const wer = wordErrorRate(englishSentences.join(' '), heard);
    const factor = result.cpuSeconds / result.durationSeconds;
    const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(
      `${name.padEnd(13)} ${(wer * 100).toFixed(1).padStart(5)} %  ${mark(wer <= werGoal).padEnd(6)} ${factor.toFixed(2).padStart(5)}x  ${mark(factor <= goals.realTimePerCore)}`,
    );
    console.log(`  heard: ${heard.trim()}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
