import { test } from 'vitest';
import assert from 'node:assert/strict';
import { GrpcStatus, jobFailureOf } from '@kino/proto';
import { NodeJobs } from './encode-service.ts';
import { NodeBusyError, classifyInputFailure, toGrpcStatus, InvalidSourceError, StorageUnavailableError, UrlRefusedError } from './errors.ts';
import { FfmpegAbortedError, FfmpegError, NotAVideoError, backgroundNiceness } from '@kino/ffmpeg';

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
  assert.deepEqual(jobs.raise('run-3'), { threads: 0, refused: false }, 'no ffmpeg running yet: only the value changes');
  assert.deepEqual([background.priority.niceness, again.priority.niceness], [0, 0], 'their later ffmpeg runs start at 0');
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

test('failures map to the statuses the orchestrator acts on', () => {
  assert.equal(toGrpcStatus(new NodeBusyError('full')).code, GrpcStatus.RESOURCE_EXHAUSTED);
  assert.equal(toGrpcStatus(new NotAVideoError('no video stream')).code, GrpcStatus.INVALID_ARGUMENT);
  assert.equal(toGrpcStatus(new Error('boom')).code, GrpcStatus.INTERNAL);
  const unreadable = new FfmpegError('ffprobe', 1, null, 'https://s3/x: Invalid data found when processing input\n');
  assert.equal(toGrpcStatus(unreadable).code, GrpcStatus.INVALID_ARGUMENT);
  assert.ok(classifyInputFailure('moov atom not found') instanceof InvalidSourceError);
  assert.equal(classifyInputFailure('Server returned 404 Not Found')?.code, GrpcStatus.NOT_FOUND);
  assert.equal(classifyInputFailure('Server returned 403 Forbidden (access denied)')?.code, GrpcStatus.PERMISSION_DENIED);
  assert.equal(classifyInputFailure('Connection refused')?.code, GrpcStatus.UNAVAILABLE);
  assert.equal(classifyInputFailure('Server returned 5XX Server Error reply')?.code, GrpcStatus.UNAVAILABLE);
  assert.equal(classifyInputFailure('Server returned 4XX Client Error, but not one of 40{0,1,3,4}')?.code, GrpcStatus.INVALID_ARGUMENT);
  assert.equal(classifyInputFailure('Error while filtering: Cannot allocate memory'), undefined);
});

test('every failure carries its reason in the kino-job-failure-bin trailer', () => {
  const reasonOf = (error: unknown) => {
    const status = toGrpcStatus(error);
    return jobFailureOf(Object.assign(new Error(status.details), status))?.reason;
  };
  assert.equal(reasonOf(new NodeBusyError('full')), 'NODE_BUSY');
  assert.equal(reasonOf(new NotAVideoError('no video stream')), 'INVALID_SOURCE');
  assert.equal(reasonOf(new StorageUnavailableError('could not upload seg-00000.m4s')), 'STORAGE_UNAVAILABLE');
  assert.equal(reasonOf(new UrlRefusedError('HTTP 403')), 'URL_REFUSED');
  assert.equal(reasonOf(new FfmpegError('ffprobe', 1, null, 'Server returned 404 Not Found\n')), 'SOURCE_NOT_FOUND');
  assert.equal(reasonOf(new FfmpegError('ffmpeg', 1, null, 'Connection refused\n')), 'STORAGE_UNAVAILABLE');
  // ffmpeg failing for its own reasons is told apart from the node's internal errors.
  const oom = new FfmpegError('ffmpeg', 1, null, 'Error while filtering: Cannot allocate memory\n');
  assert.equal(reasonOf(oom), 'FFMPEG_FAILED');
  assert.equal(toGrpcStatus(oom).code, GrpcStatus.INTERNAL);
  assert.equal(reasonOf(new FfmpegAbortedError('ffmpeg')), 'CANCELLED');
  assert.equal(reasonOf(new Error('boom')), 'INTERNAL');
  assert.equal(toGrpcStatus(new Error('could not open http://s3/x?X-Amz-Signature=secret')).details, 'could not open (url)');
});
