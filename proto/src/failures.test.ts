import { test } from 'vitest';
import assert from 'node:assert/strict';
import { grpc } from './definitions.ts';
import { NodeJobFailure, jobFailureMetadataKey, jobFailureOf, jobFailureStatus } from './failures.ts';

/** A failed call as the client sees it: the server's status, its trailers as metadata. */
function callFailedWith(status: grpc.StatusObject): grpc.ServiceError {
  return Object.assign(new Error(`${status.code} ${grpc.status[status.code]}: ${status.details}`), status);
}

test('a JobFailure travels in the trailers and comes back as a NodeJobFailure with its reason', () => {
  const status = jobFailureStatus('STORAGE_UNAVAILABLE', 'could not upload seg-00001.m4s after 3 attempts');
  assert.equal(status.code, grpc.status.UNAVAILABLE, 'the status code nodes always answered with');
  assert.ok(Buffer.isBuffer(status.metadata.get(jobFailureMetadataKey)[0]));

  const failure = jobFailureOf(callFailedWith(status));
  assert.ok(failure instanceof NodeJobFailure);
  assert.equal(failure.reason, 'STORAGE_UNAVAILABLE');
  assert.equal(failure.details, 'could not upload seg-00001.m4s after 3 attempts');
  assert.equal(failure.code, grpc.status.UNAVAILABLE);
});

test('a failed call without the trailer (the node did not answer) has no JobFailure', () => {
  assert.equal(
    jobFailureOf(
      callFailedWith({ code: grpc.status.UNAVAILABLE, details: 'Connection dropped', metadata: new grpc.Metadata() }),
    ),
    undefined,
  );
  const garbled = new grpc.Metadata();
  garbled.set(jobFailureMetadataKey, Buffer.from([0xff, 0xff, 0xff]));
  assert.equal(
    jobFailureOf(callFailedWith({ code: grpc.status.INTERNAL, details: 'x', metadata: garbled })),
    undefined,
  );
});
