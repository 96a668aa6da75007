import { test } from 'vitest';
import assert from 'node:assert/strict';
import { animatedPreviewUrl, pictureUrl } from './delivery-urls.ts';

const signed = 'https://media.example.com/v1/private/vid_1/master.m3u8?token=abc.def';
const published = 'https://media.example.com/v1/public/org_1/env_1/vid_2/master.m3u8';

test('a picture of any moment, in every family, its token carried', () => {
  assert.equal(
    pictureUrl(signed, { width: 640, height: 360, time: 12.5, format: 'webp' }),
    'https://media.example.com/t/vid_1/640x360.webp?time=12.5&token=abc.def',
  );
  assert.equal(pictureUrl(published, { width: 320, height: 180 }), 'https://media.example.com/t/vid_2/320x180.jpg');
  assert.equal(
    pictureUrl('http://127.0.0.1:7081/vid_3/master.m3u8', { width: 16, height: 16, time: 0 }),
    'http://127.0.0.1:7081/t/vid_3/16x16.jpg?time=0',
  );
  assert.throws(() => pictureUrl('https://media.example.com/t/vid_1/1x1.jpg', { width: 16, height: 16 }), TypeError);
});

test('an animated preview beside the master playlist, its stretch and the token in the query', () => {
  assert.equal(
    animatedPreviewUrl(signed, { start: 10, end: 14, width: 480, format: 'gif' }),
    'https://media.example.com/v1/private/vid_1/animated.gif?start=10&end=14&width=480&token=abc.def',
  );
  assert.equal(animatedPreviewUrl(published), 'https://media.example.com/v1/public/org_1/env_1/vid_2/animated.webp');
});
