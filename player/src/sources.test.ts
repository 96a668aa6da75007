import { test } from 'vitest';
import assert from 'node:assert/strict';
import { siblingOf, sourcesOf } from './sources.ts';

const none = { src: null, playbackId: null, token: null, deliveryUrl: null, poster: null, storyboard: null };

test('a public video by id: the direct family, its storyboard and default thumbnail, bootstrap asked for', () => {
  assert.deepEqual(sourcesOf({ ...none, playbackId: 'vid_a', deliveryUrl: 'https://cdn.example/' }), {
    master: 'https://cdn.example/vid_a/master.m3u8?bootstrap=true',
    storyboard: 'https://cdn.example/vid_a/storyboard.vtt',
    poster: 'https://cdn.example/t/vid_a/1280x720.jpg',
  });
});

test('a private video by id and token: the private family, the token on every file', () => {
  assert.deepEqual(sourcesOf({ ...none, playbackId: 'vid_a', token: 'a.b.c' }), {
    master: '/v1/private/vid_a/master.m3u8?token=a.b.c&bootstrap=true',
    storyboard: '/v1/private/vid_a/storyboard.vtt?token=a.b.c',
    poster: '/t/vid_a/1280x720.jpg?token=a.b.c',
  });
});

test('a src keeps its own query, gets the token once, and the attributes override poster and storyboard', () => {
  const signed = 'https://d.example/v1/private/vid_a/master.m3u8?token=t1';
  assert.equal(sourcesOf({ ...none, src: signed, token: 't2' })!.master, `${signed}&bootstrap=true`);
  assert.deepEqual(
    sourcesOf({ ...none, src: '/v1/share/l1/master.m3u8?bootstrap=true', poster: '/p.jpg', storyboard: '/s.vtt' }),
    { master: '/v1/share/l1/master.m3u8?bootstrap=true', storyboard: '/s.vtt', poster: '/p.jpg' },
  );
  // An empty attribute says there is none: nothing is fetched.
  assert.deepEqual(sourcesOf({ ...none, playbackId: 'vid_a', poster: '', storyboard: '' }), {
    master: '/vid_a/master.m3u8?bootstrap=true',
    storyboard: null,
    poster: null,
  });
  assert.equal(sourcesOf(none), null);
});

test('a sibling drops bootstrap and keeps the rest of the query', () => {
  assert.equal(siblingOf('/v/master.m3u8?bootstrap=true&token=x', 'storyboard.vtt'), '/v/storyboard.vtt?token=x');
});
