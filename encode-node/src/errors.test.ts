import { test } from 'vitest';
import assert from 'node:assert/strict';
import { GrpcStatus, jobFailureOf } from '@kino/proto';
import { FfmpegAbortedError, FfmpegError, NotAVideoError } from '@kino/ffmpeg';
import {
  NodeBusyError,
  classifyInputFailure,
  toGrpcStatus,
  InvalidSourceError,
  StorageUnavailableError,
  UrlRefusedError,
} from './errors.ts';

test('failures map to the statuses the orchestrator acts on', () => {
  assert.equal(toGrpcStatus(new NodeBusyError('full')).code, GrpcStatus.RESOURCE_EXHAUSTED);
  assert.equal(toGrpcStatus(new NotAVideoError('no video stream')).code, GrpcStatus.INVALID_ARGUMENT);
  assert.equal(toGrpcStatus(new Error('boom')).code, GrpcStatus.INTERNAL);
  const unreadable = new FfmpegError('ffprobe', 1, null, 'https://s3/x: Invalid data found when processing input\n');
  assert.equal(toGrpcStatus(unreadable).code, GrpcStatus.INVALID_ARGUMENT);
  assert.ok(classifyInputFailure('moov atom not found') instanceof InvalidSourceError);
  assert.equal(classifyInputFailure('Server returned 404 Not Found')?.code, GrpcStatus.NOT_FOUND);
  assert.equal(
    classifyInputFailure('Server returned 403 Forbidden (access denied)')?.code,
    GrpcStatus.PERMISSION_DENIED,
  );
  assert.equal(classifyInputFailure('Connection refused')?.code, GrpcStatus.UNAVAILABLE);
  assert.equal(classifyInputFailure('Server returned 5XX Server Error reply')?.code, GrpcStatus.UNAVAILABLE);
  assert.equal(
    classifyInputFailure('Server returned 4XX Client Error, but not one of 40{0,1,3,4}')?.code,
    GrpcStatus.INVALID_ARGUMENT,
  );
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
  assert.equal(
    toGrpcStatus(new Error('could not open http://s3/x?X-Amz-Signature=secret')).details,
    'could not open (url)',
  );
});
