import { test } from 'vitest';
import assert from 'node:assert/strict';
import { backgroundNiceness } from '@kino/ffmpeg';
import { GrpcStatus, jobFailureOf } from '@kino/proto';
import { NodeBusyError, toGrpcStatus } from './errors.ts';
import { NodeJobs } from './node-jobs.ts';

test('encodes take slots; probes and thumbnails do not', () => {
  const jobs = new NodeJobs(2);
  const a = jobs.start('encode', 'a');
  jobs.start('encode', 'b');
  assert.throws(() => jobs.start('encode', 'c'), NodeBusyError);
  const probe = jobs.start('probe', 'p');
  assert.deepEqual(jobs.activeJobIds().sort(), ['a', 'b', 'p']);
  a.finish();
  a.finish(); // twice is harmless
  assert.equal(jobs.encodesRunning, 1);
  jobs.start('encode', 'c');
  probe.finish();
  assert.deepEqual(jobs.activeJobIds().sort(), ['b', 'c']);
});

test('a transcription takes a slot as an encode does, and never the demand slot', () => {
  const jobs = new NodeJobs(1);
  const transcription = jobs.start('transcribe', 't');
  assert.equal(jobs.encodesRunning, 1);
  assert.throws(() => jobs.start('encode', 'e'), NodeBusyError);
  assert.throws(() => jobs.start('transcribe', 't2', { onDemand: true }), NodeBusyError);
  transcription.finish();
  jobs.start('encode', 'e');
});

test('an encode someone waits for takes the demand slot when every slot is busy: one beside the slots', () => {
  const jobs = new NodeJobs(1);
  const background = jobs.start('encode', 'background');
  assert.throws(() => jobs.start('encode', 'another'), NodeBusyError);
  const demand = jobs.start('encode', 'viewer', { onDemand: true });
  assert.throws(() => jobs.start('encode', 'second-viewer', { onDemand: true }), NodeBusyError, 'one demand slot');
  demand.finish();
  jobs.start('encode', 'third-viewer', { onDemand: true });
  background.finish();
  assert.equal(jobs.encodesRunning, 0, 'the demand slot is not one of the slots');
  jobs.start('encode', 'next', { onDemand: true });
  assert.equal(jobs.encodesRunning, 1, 'with a slot free, an urgent encode takes it');
});

test('a repeated job id gets a distinct running id', () => {
  const jobs = new NodeJobs(2);
  const first = jobs.start('encode', 'job');
  const second = jobs.start('encode', 'job');
  assert.notEqual(first.jobId, second.jobId);
  assert.equal(jobs.activeJobIds().length, 2);
});

test('an encode runs niced unless someone waits for it; raising it by its job id un-nices it (and a second call of that id still running)', () => {
  const jobs = new NodeJobs(3);
  const background = jobs.startEncode('run-3');
  const viewer = jobs.startEncode('run-5', { onDemand: true });
  assert.equal(background.priority.niceness, backgroundNiceness);
  assert.equal(viewer.priority.niceness, 0);
  const again = jobs.startEncode('run-3');
  assert.notEqual(again.jobId, background.jobId);

  assert.equal(jobs.raise('run-4'), undefined, 'no encode of that job runs here');
  assert.deepEqual(
    jobs.raise('run-3'),
    { threads: 0, refused: false },
    'no ffmpeg running yet: only the value changes',
  );
  assert.deepEqual(
    [background.priority.niceness, again.priority.niceness],
    [0, 0],
    'their later ffmpeg runs start at 0',
  );
  background.finish();
  again.finish();
  assert.equal(jobs.raise('run-3'), undefined, 'finished: not running any more');
  assert.equal(jobs.raise('run-'), undefined, 'a prefix of an id is not the id');
  const unnamed = jobs.startEncode('');
  assert.equal(jobs.raise(''), undefined, 'an encode called without an id cannot be raised');
  assert.equal(unnamed.priority.niceness, backgroundNiceness);
});

test('draining refuses new jobs and resolves when the running ones finish', async () => {
  const jobs = new NodeJobs(1);
  const running = jobs.start('encode', 'x');
  let drained = false;
  const drain = jobs.drain().then(() => (drained = true));
  assert.equal(jobs.isDraining, true);
  assert.throws(() => jobs.start('probe', 'y'), /draining/);
  await Promise.resolve();
  assert.equal(drained, false);
  running.finish();
  await drain;
  assert.equal(drained, true);
  await new NodeJobs(1).drain(); // idle: at once
});

test('abandoning every running job (the registry marked the node gone) aborts each, once finished ones aside', () => {
  const jobs = new NodeJobs(1);
  const encode = jobs.startEncode('e');
  const probe = jobs.start('probe', 'p');
  const done = jobs.start('thumbnail', 't');
  done.finish();
  assert.equal(jobs.abandonAll('moved'), 2);
  assert.equal(jobs.abandonAll('moved'), 0, 'abandoned already (and still ending): not counted again');
  assert.equal(encode.abandoned.aborted, true);
  assert.equal(probe.abandoned.aborted, true);
  assert.equal(done.abandoned.aborted, false);
});

test('an abandoned job fails as CANCELLED wherever the abandonment lands (an upload, ffmpeg): a warning, not an internal error', () => {
  const jobs = new NodeJobs(1);
  const encode = jobs.startEncode('e');
  jobs.abandonAll('moved');
  // What an upload cut off by the abandonment throws: the signal's reason.
  const status = toGrpcStatus(encode.abandoned.reason);
  assert.equal(status.code, GrpcStatus.CANCELLED);
  assert.equal(jobFailureOf(Object.assign(new Error(status.details), status))?.reason, 'CANCELLED');
  assert.match(status.details, /moved/);
});
