// Storyboards and MP4 downloads of videos the real farm made (API, Temporal, orchestrator, an encode
// node, delivery): the details say where the storyboard is; its WebVTT is served on the public,
// private (token) and direct families; in Chromium (headless, through playwright-core) a page on
// another origin fetches and parses the VTT and loads every sprite sheet it names, and each cue's
// `#xywh` region lies inside the sheet's real size while the cues cover the whole video without
// gaps. Each rendition downloads as one MP4 that ffprobe reads in full and ffmpeg decodes to the
// source's frame count.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';

const run = promisify(execFile);

let farm: FarmTenant;
let workDir: string;
let browser: Browser;
let pageServer: Server;
let pageOrigin: string;
let sourceFrames: number;
let deliveryUrl: string;
const videos: { public?: string; private?: string } = {};

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-storyboards-'));
  let clipPath: string;
  // 13 s: three storyboard tiles (5 s, 5 s, 3 s) and three HLS segments per rendition.
  [farm, clipPath] = await Promise.all([
    joinSharedFarm('storyboards-and-downloads'),
    makeClip({ seconds: 13, width: 640, height: 360, fps: 24, audio: true, path: join(workDir, 'clip.mp4') }),
  ]);
  sourceFrames = await countFramesInFile(clipPath);
  deliveryUrl = farm.deliveryUrl!;
  const clip = await readFile(clipPath);
  for (const allowPublicAccess of [true, false]) {
    const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
      filename: 'clip.mp4',
      fileSize: clip.length,
      contentType: 'video/mp4',
    });
    await farm.kino.uploads.putFile(ticket, clip, 'video/mp4');
    const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
      storagePath: ticket.bucketPath,
      videoQuality: 'standard',
      allowPublicAccess,
      videoName: 'storyboard clip',
      compressionRatio: 'ultrafast',
    });
    videos[allowPublicAccess ? 'public' : 'private'] = videoID;
  }
  await Promise.all(Object.values(videos).map((id) => farm.waitForStatus(id, 'ready', 240_000)));

  pageServer = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><meta charset="utf-8"><title>Kino storyboard</title></head><body></body></html>',
    );
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
  pageServer?.close();
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

interface BrowserCue {
  start: number;
  end: number;
  image: string;
  x: number;
  y: number;
  w: number;
  h: number;
  naturalWidth: number;
  naturalHeight: number;
}

/** In a page on another origin: fetch the VTT, parse its cues, load each sheet and measure it. */
async function cuesInBrowser(vttUrl: string): Promise<BrowserCue[]> {
  const tab = await browser.newPage();
  try {
    await tab.goto(`${pageOrigin}/`);
    return await tab.evaluate(async (url) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`VTT answered ${response.status}`);
      const text = await response.text();
      if (!text.startsWith('WEBVTT')) throw new Error('not a WebVTT file');
      const seconds = (stamp: string) => {
        const [h, m, s] = stamp.split(':');
        return Number(h) * 3600 + Number(m) * 60 + Number(s);
      };
      const sizes = new Map<string, Promise<{ naturalWidth: number; naturalHeight: number }>>();
      const measure = (image: string) => {
        let size = sizes.get(image);
        if (!size) {
          const img = new Image();
          img.crossOrigin = 'anonymous';
          img.src = image;
          size = img.decode().then(() => ({ naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight }));
          sizes.set(image, size);
        }
        return size;
      };
      const cues = [];
      for (const block of text.split(/\r?\n\r?\n/)) {
        const lines = block.split(/\r?\n/).filter((line) => line.trim() !== '');
        const timing = lines.findIndex((line) => line.includes('-->'));
        if (timing === -1) continue;
        const [from, to] = lines[timing]!.split('-->').map((part) => part.trim().split(/\s+/)[0]!);
        const target = new URL(lines[timing + 1]!, url);
        const xywh = /^#xywh=(\d+),(\d+),(\d+),(\d+)$/.exec(target.hash);
        if (!xywh) throw new Error(`cue without #xywh: ${lines[timing + 1]}`);
        target.hash = '';
        const [x, y, w, h] = xywh.slice(1).map(Number) as [number, number, number, number];
        cues.push({
          start: seconds(from!),
          end: seconds(to!),
          image: target.href,
          x,
          y,
          w,
          h,
          ...(await measure(target.href)),
        });
      }
      return cues;
    }, vttUrl);
  } finally {
    await tab.close();
  }
}

function assertStoryboard(cues: BrowserCue[], durationSeconds: number): void {
  assert.equal(cues.length, 3, 'one cue per 5 s of a 13 s video');
  assert.equal(cues[0]!.start, 0);
  cues.forEach((cue, i) => {
    assert.ok(cue.end > cue.start, `cue ${i} is not empty`);
    if (i > 0) assert.equal(cue.start, cues[i - 1]!.end, `cue ${i} starts where cue ${i - 1} ends`);
    assert.ok(cue.w > 0 && cue.h > 0, `cue ${i} has a region`);
    assert.ok(
      cue.x + cue.w <= cue.naturalWidth && cue.y + cue.h <= cue.naturalHeight,
      `cue ${i} region inside ${cue.naturalWidth}x${cue.naturalHeight}`,
    );
  });
  assert.ok(
    Math.abs(cues.at(-1)!.end - durationSeconds) < 0.01,
    `cues end at ${cues.at(-1)!.end}, the video at ${durationSeconds}`,
  );
  // Three different tiles of a 16:9 video, 160 px wide.
  assert.equal(new Set(cues.map((c) => `${c.image}#${c.x},${c.y}`)).size, 3);
  assert.equal(cues[0]!.w, 160);
  assert.equal(cues[0]!.h, 90);
}

describe('storyboards', () => {
  test('a public video: storyboardUrl in its details, the VTT on every family, regions inside the sheets, cues cover the video', async () => {
    const id = videos.public!;
    const details = await farm.kino.videos.get(farm.orgId, id);
    const publicUrl = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${id}/storyboard.vtt`;
    assert.equal(details.storyboardUrl, publicUrl);
    for (const url of [publicUrl, `${deliveryUrl}/${id}/storyboard.vtt`]) {
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assert.equal(response.headers.get('content-type'), 'text/vtt; charset=utf-8');
      await response.arrayBuffer();
      assertStoryboard(await cuesInBrowser(url), details.durationSeconds);
    }
  });

  test('a private video: the details URL carries a token the VTT passes on to its sheets; without one, 401', async () => {
    const id = videos.private!;
    const details = await farm.kino.videos.get(farm.orgId, id);
    assert.ok(
      details.storyboardUrl?.startsWith(`${deliveryUrl}/v1/private/${id}/storyboard.vtt?token=`),
      details.storyboardUrl,
    );
    const token = new URL(details.storyboardUrl!).searchParams.get('token')!;
    const vtt = await (await fetch(details.storyboardUrl!)).text();
    for (const line of vtt.split('\n').filter((l) => l.includes('#xywh=')))
      assert.ok(line.includes(`.jpg?token=${token}#xywh=`), line);
    assertStoryboard(await cuesInBrowser(details.storyboardUrl!), details.durationSeconds);
    for (const path of [
      `/v1/private/${id}/storyboard.vtt`,
      `/v1/public/${farm.orgId}/${farm.envId}/${id}/storyboard.vtt`,
      `/${id}/storyboard.vtt`,
      `/${id}/storyboard-0.jpg`,
    ]) {
      const refused = await fetch(`${deliveryUrl}${path}`);
      assert.equal(refused.status, 401, path);
      await refused.arrayBuffer();
      const allowed = await fetch(`${deliveryUrl}${path}?token=${token}`);
      assert.equal(allowed.status, 200, path);
      await allowed.arrayBuffer();
    }
    assert.equal((await fetch(`${deliveryUrl}/${id}/storyboard-1.jpg?token=${token}`)).status, 404, 'one sheet only');
  });
});

describe('MP4 downloads of a transcoded video', () => {
  test('each rendition downloads as one MP4: ffprobe reads its full duration, ffmpeg decodes every frame of the source', async () => {
    const id = videos.public!;
    const details = await farm.kino.videos.get(farm.orgId, id);
    assert.ok(details.encodings.length >= 1);
    for (const { key } of details.encodings) {
      const url = `${deliveryUrl}/${id}/${key}.mp4`;
      const head = await fetch(url, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-disposition'), `attachment; filename="${id}-${key}.mp4"`);
      const { stdout } = await run('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'format=duration',
        '-of',
        'csv=p=0',
        url,
      ]);
      assert.ok(
        Math.abs(Number(stdout.trim()) - details.durationSeconds) < 0.1,
        `${url}: ${stdout.trim()} s of ${details.durationSeconds}`,
      );
      assert.equal(await countDecodedFrames(url), sourceFrames, url);
    }
    const token = new URL(details.storyboardUrl!).searchParams.get('token');
    assert.equal(token, null, 'a public video needs no token');
    const privateId = videos.private!;
    assert.equal(
      (await fetch(`${deliveryUrl}/v1/private/${privateId}/video-240p.mp4`, { method: 'HEAD' })).status,
      401,
    );
  });
});
