// The one player page of the delivery host, used by a share link's watch page and by the embed
// page (docs/decisions/delivery.md#embeds): Kino's own <kino-player> (the @kino/player package,
// docs/decisions/player.md), the element and hls.js in one ES module served by this node from the
// installed package (no CDN), so the page's Content-Security-Policy allows scripts from 'self' only.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { playerAssetPaths } from '@kino/proto/contract';

/**
 * Scripts from this host only; inline styles because the player's shadow root carries its own
 * <style>; media from blob: (MediaSource), this host and data: (hls.js's caption tracks); images
 * (the poster, storyboard sheets) and the storyboard's fetch from this host. Any page may frame it:
 * that is what an embed is for.
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
  /** The poster (the video's thumbnail at the frame's size), when the video has one. */
  poster?: string;
  /** The storyboard's WebVTT, when the video has one; absent: no previews (nothing is fetched). */
  storyboard?: string;
  /** This page's oEmbed URL, for the discovery link. */
  oembed?: string;
}

// Resolved as imports are: the package's export is its built bundle (player/scripts/build.mjs).
const assetFiles: Record<string, string> = {
  [playerAssetPaths.player]: fileURLToPath(import.meta.resolve('@kino/player')),
};
const assets = new Map<string, Promise<Buffer>>();

/** A player file by its path (playerAssetPaths), read once; undefined for any other path. */
export function playerAsset(path: string): Promise<Buffer> | undefined {
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

export function playerPage({ title, src, poster, storyboard, oembed }: PlayerPageOptions): Buffer {
  const discovery = oembed
    ? `\n<link rel="alternate" type="application/json+oembed" href="${escapeHtml(oembed)}" title="${escapeHtml(title)}">`
    : '';
  const posterAttribute = poster ? ` poster="${escapeHtml(poster)}"` : '';
  return Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>${discovery}
<link rel="icon" href="data:,">
<style>
  html, body { margin: 0; height: 100%; background: #000; color: #eee; font: 16px system-ui, sans-serif; overflow: hidden; }
  main, kino-player { display: block; width: 100%; height: 100%; aspect-ratio: auto; }
</style>
<script type="module" src="${playerAssetPaths.player}"></script>
</head>
<body>
<main>
<kino-player id="player" src="${escapeHtml(src)}"${posterAttribute} storyboard="${escapeHtml(storyboard ?? '')}" aria-label="${escapeHtml(title)}"></kino-player>
</main>
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
