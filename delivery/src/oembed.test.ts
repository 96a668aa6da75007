import { test } from 'vitest';
import assert from 'node:assert/strict';
import { DeliveryError } from './errors.ts';
import { embedSize, iframeHtml, parseEmbeddableUrl, parseMaxSize } from './oembed.ts';

const statusOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DeliveryError) return `${error.status} ${error.code}`;
    throw error;
  }
  return 'no error';
};

test('oEmbed urls: embed URLs (with their token) and share watch pages of this host only', () => {
  const host = 'cdn.example.com:7081';
  assert.deepEqual(parseEmbeddableUrl('http://cdn.example.com:7081/embed/vid_1', host), {
    kind: 'embed',
    videoId: 'vid_1',
    token: null,
  });
  assert.deepEqual(parseEmbeddableUrl('https://cdn.example.com:7081/embed/vid_1/?token=a.b.c', host), {
    kind: 'embed',
    videoId: 'vid_1',
    token: 'a.b.c',
  });
  assert.deepEqual(parseEmbeddableUrl('http://CDN.example.com:7081/v1/share/shr_1', host), {
    kind: 'share',
    linkId: 'shr_1',
  });
  assert.equal(
    statusOf(() => parseEmbeddableUrl('http://other.example.com/embed/vid_1', host)),
    '404 not_found',
  );
  assert.equal(
    statusOf(() => parseEmbeddableUrl('http://cdn.example.com:7081/vid_1/master.m3u8', host)),
    '404 not_found',
  );
  assert.equal(
    statusOf(() => parseEmbeddableUrl('http://cdn.example.com:7081/embed/vid_1/master.m3u8', host)),
    '404 not_found',
  );
  assert.equal(
    statusOf(() => parseEmbeddableUrl('not a url', host)),
    '400 invalid_url',
  );
  assert.equal(
    statusOf(() => parseEmbeddableUrl(null, host)),
    '400 invalid_url',
  );
  assert.equal(
    statusOf(() => parseEmbeddableUrl('ftp://cdn.example.com:7081/embed/vid_1', host)),
    '400 invalid_url',
  );
  assert.equal(
    statusOf(() => parseEmbeddableUrl('http://cdn.example.com:7081/embed/vid_1', undefined)),
    '404 not_found',
  );
});

test('oEmbed sizes: the video own size, scaled down to fit maxwidth and maxheight with its aspect ratio, never up', () => {
  const hd = { width: 1920, height: 1080 };
  assert.deepEqual(embedSize(hd, {}), hd);
  assert.deepEqual(embedSize(hd, { maxwidth: 640 }), { width: 640, height: 360 });
  assert.deepEqual(embedSize(hd, { maxheight: 270 }), { width: 480, height: 270 });
  // Both bounds: the tighter one wins.
  assert.deepEqual(embedSize(hd, { maxwidth: 640, maxheight: 100 }), { width: 178, height: 100 });
  assert.deepEqual(embedSize(hd, { maxwidth: 4000, maxheight: 4000 }), hd);
  // Portrait.
  assert.deepEqual(embedSize({ width: 1080, height: 1920 }, { maxwidth: 500, maxheight: 500 }), {
    width: 281,
    height: 500,
  });
  // Unknown size (audio only): 640x360.
  assert.deepEqual(embedSize(null, { maxwidth: 320 }), { width: 320, height: 180 });
  // The bound side is exactly the bound, the other rounded.
  assert.deepEqual(embedSize({ width: 854, height: 480 }, { maxwidth: 480 }), { width: 480, height: 270 });
  assert.deepEqual(embedSize({ width: 0, height: 0 }, {}), { width: 640, height: 360 });
});

test('maxwidth and maxheight are positive integers', () => {
  assert.deepEqual(parseMaxSize(new URLSearchParams('maxwidth=640&maxheight=')), { maxwidth: 640 });
  assert.equal(
    statusOf(() => parseMaxSize(new URLSearchParams('maxwidth=0'))),
    '400 invalid_oembed_parameters',
  );
  assert.equal(
    statusOf(() => parseMaxSize(new URLSearchParams('maxheight=1.5'))),
    '400 invalid_oembed_parameters',
  );
  assert.equal(
    statusOf(() => parseMaxSize(new URLSearchParams('maxheight=abc'))),
    '400 invalid_oembed_parameters',
  );
});

test('the iframe html: the page at its size, its attributes escaped', () => {
  assert.equal(
    iframeHtml('http://h/embed/v?token=a&b', 'A "quoted" <title>', { width: 640, height: 360 }),
    '<iframe src="http://h/embed/v?token=a&amp;b" width="640" height="360" title="A &quot;quoted&quot; &lt;title&gt;" style="border:0" allow="autoplay; fullscreen; picture-in-picture; encrypted-media" allowfullscreen></iframe>',
  );
});
