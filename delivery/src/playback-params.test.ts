import { test } from 'vitest';
import assert from 'node:assert/strict';
import { validatePlaybackParams } from './playback-params.ts';

const errorsOf = (query: string) => validatePlaybackParams(new URLSearchParams(query)).map((e) => e.location);

test('valid low-latency parameters pass', () => {
  assert.deepEqual(errorsOf(''), []);
  assert.deepEqual(errorsOf('bootstrap=true&_HLS_msn=3&_HLS_part=1&_HLS_skip=YES'), []);
  assert.deepEqual(errorsOf('bootstrap=0&_HLS_skip=v2&token=x'), []);
});

test('invalid values are named', () => {
  assert.deepEqual(errorsOf('bootstrap=maybe'), ['query.bootstrap']);
  assert.deepEqual(errorsOf('_HLS_msn=-1'), ['query._HLS_msn']);
  assert.deepEqual(errorsOf('_HLS_msn=1.5'), ['query._HLS_msn']);
  assert.deepEqual(errorsOf('_HLS_msn=1&_HLS_part=x'), ['query._HLS_part']);
  assert.deepEqual(errorsOf('_HLS_part=1'), ['query._HLS_part']);
  assert.deepEqual(errorsOf('_HLS_skip=sometimes'), ['query._HLS_skip']);
});

test('a parameter the interface does not list is named, with the one it most likely meant', () => {
  assert.deepEqual(validatePlaybackParams(new URLSearchParams('tokne=abc&bootstrap=true&foo=1')), [
    { message: 'tokne is not a playback parameter; did you mean `token`?', location: 'query.tokne', value: 'abc' },
    { message: 'foo is not a playback parameter', location: 'query.foo', value: '1' },
  ]);
  assert.deepEqual(errorsOf('token=x&token=y'), [], 'a repeated known parameter is not unknown');
  assert.deepEqual(
    validatePlaybackParams(new URLSearchParams('foo=1&token=x&foo=2')),
    [{ message: 'foo is not a playback parameter', location: 'query.foo', value: '1' }],
    'a repeated unknown parameter is named once, with its first value',
  );
});

test("a route's own parameters are known on that route only, and meant when misspelt there", () => {
  assert.deepEqual(validatePlaybackParams(new URLSearchParams('time=3&token=x'), ['time']), []);
  assert.deepEqual(errorsOf('time=3'), ['query.time'], 'not a parameter of playlists and segments');
  assert.deepEqual(validatePlaybackParams(new URLSearchParams('tme=3'), ['time']), [
    { message: 'tme is not a playback parameter; did you mean `time`?', location: 'query.tme', value: '3' },
  ]);
});
