// The one player page of the delivery host, used by a share link's watch page and by the embed
// page (docs/decisions/delivery.md#embeds): media-chrome's controls around a <video> that hls.js
// feeds (native HLS where the browser has it, as in Safari). Captions come from the master
// playlist's subtitles group (hls.js makes them text tracks, media-chrome's captions menu lists
// them); storyboard previews from a `thumbnails` metadata track, which media-chrome's time range
// reads. Every script is a file served by this node from the installed packages (no CDN) or
// the page's own script below, so the page's Content-Security-Policy allows scripts from 'self' only.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { playerAssetPaths } from '@kino/proto/contract';

/**
 * Scripts from this host only; inline styles because media-chrome's shadow roots carry their own
 * <style>; media from blob: (MediaSource), this host and data: (hls.js makes each caption
 * track a <track src="data:,WEBVTT"> and fills its cues itself); hls.js's worker from a blob:. Any page may
 * frame it: that is what an embed is for.
 */
export const playerPageCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  'frame-ancestors *',
].join('; ');

export interface PlayerPageOptions {
  title: string;
  /** The master playlist, relative to this host (with its `?token=` for a private video). */
  src: string;
  /** The storyboard's WebVTT, when the video has one. */
  storyboard?: string;
  /** This page's oEmbed URL, for the discovery link. */
  oembed?: string;
}

// Resolved as imports are (media-chrome's exports send `require` to its CommonJS build).
const assetFiles: Record<string, string> = {
  [playerAssetPaths.hls]: fileURLToPath(import.meta.resolve('hls.js/dist/hls.min.js')),
  // The IIFE build of everything (controls and menus) in one file: no module graph to serve.
  [playerAssetPaths.mediaChrome]: fileURLToPath(import.meta.resolve('media-chrome/dist/iife/all.js')),
};
const assets = new Map<string, Promise<Buffer>>();

/**
 * The page's own script, run in the browser as served: hls.js plays the master playlist (the
 * video's `data-src`) into the <video> media-chrome controls; when the playlist is refused, the page
 * shows delivery's reason (the error envelope's detail) instead of a black frame. A string here, not
 * a file beside this one, so the compiled build (dist) carries it too.
 */
const playerScript = Buffer.from(`'use strict';
(() => {
  const video = document.getElementById('player');
  const message = document.getElementById('message');
  const src = video.dataset.src;
  function show(text) {
    message.textContent = text;
    message.hidden = false;
    document.getElementById('controller').hidden = true;
  }
  async function explain() {
    try {
      const response = await fetch(src);
      show(response.ok ? 'This video cannot be played.' : (await response.json()).detail);
    } catch {
      show('This video cannot be played.');
    }
  }
  if (window.Hls && window.Hls.isSupported()) {
    const hls = new window.Hls();
    hls.on(window.Hls.Events.ERROR, (_event, data) => {
      if (data.fatal && data.details === 'manifestLoadError') explain();
    });
    hls.loadSource(src);
    hls.attachMedia(video);
  } else if (video.canPlayType('application/vnd.apple.mpegurl')) {
    video.src = src;
  } else {
    show('This browser cannot play HLS.');
  }
})();
`);

/** A player file by its path (playerAssetPaths), read once; undefined for any other path. */
export function playerAsset(path: string): Promise<Buffer> | undefined {
  if (path === playerAssetPaths.player) return Promise.resolve(playerScript);
  const file = assetFiles[path];
  if (!file) return undefined;
  let data = assets.get(path);
  if (!data) {
    data = readFile(file);
    assets.set(path, data);
  }
  return data;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function playerPage({ title, src, storyboard, oembed }: PlayerPageOptions): Buffer {
  const discovery = oembed
    ? `\n<link rel="alternate" type="application/json+oembed" href="${escapeHtml(oembed)}" title="${escapeHtml(title)}">`
    : '';
  const thumbnails = storyboard
    ? `\n  <track kind="metadata" label="thumbnails" default src="${escapeHtml(storyboard)}">`
    : '';
  return Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>${discovery}
<style>
  html, body { margin: 0; height: 100%; background: #000; color: #eee; font: 16px system-ui, sans-serif; overflow: hidden; }
  media-controller { width: 100%; height: 100%; }
  #message { position: absolute; top: 40%; width: 100%; text-align: center; }
</style>
<script src="${playerAssetPaths.hls}"></script>
<script src="${playerAssetPaths.mediaChrome}"></script>
<script src="${playerAssetPaths.player}" defer></script>
</head>
<body>
<media-controller id="controller">
  <video id="player" slot="media" playsinline crossorigin="anonymous" data-src="${escapeHtml(src)}">${thumbnails}
  </video>
  <media-loading-indicator slot="centered-chrome" noautohide></media-loading-indicator>
  <media-captions-menu hidden anchor="auto"></media-captions-menu>
  <media-control-bar>
    <media-play-button></media-play-button>
    <media-mute-button></media-mute-button>
    <media-volume-range></media-volume-range>
    <media-time-range></media-time-range>
    <media-time-display showduration></media-time-display>
    <media-captions-menu-button></media-captions-menu-button>
    <media-fullscreen-button></media-fullscreen-button>
  </media-control-bar>
</media-controller>
<div id="message" hidden></div>
</body>
</html>
`);
}

/** A page saying why nothing plays (a deleted video, a missing token), in the player's frame. */
export function messagePage(title: string, message: string): Buffer {
  return Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  html, body { margin: 0; height: 100%; background: #000; color: #eee; font: 16px system-ui, sans-serif; }
  p { position: absolute; top: 40%; width: 100%; margin: 0; text-align: center; }
</style>
</head>
<body><p id="message">${escapeHtml(message)}</p></body>
</html>
`);
}
