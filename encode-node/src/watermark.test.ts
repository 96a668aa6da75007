import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Watermark__Output } from '@kino/proto';
import { InvalidRequestError, InvalidSourceError, UrlRefusedError } from './errors.ts';
import { checkWatermark, fetchWatermark, withWatermark } from './watermark.ts';
import type { HlsPlan } from './hls-plan.ts';

const watermark: Watermark__Output = {
  imageUrl: 'http://storage.test/images/img_1',
  position: 'top-right',
  marginPercent: 3,
  widthPercent: 12,
  opacity: 1,
};

test('a watermark out of its bounds, or of no known position, is refused before anything runs', () => {
  checkWatermark(watermark);
  for (const bad of [
    { position: 'middle' },
    { widthPercent: 0 },
    { widthPercent: 51 },
    { marginPercent: -1 },
    { opacity: 1.01 },
    { imageUrl: '' },
  ]) {
    assert.throws(() => checkWatermark({ ...watermark, ...bad }), InvalidRequestError, JSON.stringify(bad));
  }
});

test('the image is fetched into the job directory; a refused URL and a file that is no image are told apart', async () => {
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==',
    'base64',
  );
  const server = createServer((request, response) => {
    if (request.url === '/png') response.end(png);
    else if (request.url === '/text') response.end('not a picture');
    else response.writeHead(403).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = await mkdtemp(join(tmpdir(), 'kino-watermark-'));
  const signal = new AbortController().signal;
  try {
    const overlay = await fetchWatermark({ ...watermark, imageUrl: `${base}/png` }, dir, signal);
    assert.deepEqual(await readFile(overlay.imageFile), png);
    assert.deepEqual(
      { ...overlay, imageFile: '' },
      { imageFile: '', position: 'top-right', marginPercent: 3, widthPercent: 12, opacity: 1 },
    );
    await assert.rejects(fetchWatermark({ ...watermark, imageUrl: `${base}/text` }, dir, signal), InvalidSourceError);
    await assert.rejects(fetchWatermark({ ...watermark, imageUrl: `${base}/expired` }, dir, signal), UrlRefusedError);
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('every rendition with a picture gets the watermark; an audio-only one does not', () => {
  const plan = {
    renditions: [
      { spec: {}, prefix: '360p/', settings: { width: 640, height: 360 } },
      { spec: {}, prefix: 'audio/', settings: { audioOnly: true } },
    ],
    program: undefined,
    twoPass: false,
  } as unknown as HlsPlan;
  const overlay = {
    imageFile: '/j/watermark',
    position: 'center' as const,
    marginPercent: 3,
    widthPercent: 12,
    opacity: 1,
  };
  const marked = withWatermark(plan, overlay);
  assert.deepEqual(marked.renditions[0]!.settings.watermark, overlay);
  assert.equal(marked.renditions[1]!.settings.watermark, undefined);
  assert.equal(withWatermark(plan, undefined), plan);
});
