// Share links on the delivery node (docs/decisions/delivery.md#share-links). `/v1/share/{linkId}/...` serves
// the `/v1` family's files of the link's video with no token: the link id is the credential. Every
// load of the master playlist counts one view in PostgreSQL with a conditional UPDATE, so
// `maxViews` holds across any number of delivery nodes; the other files only need the link to be
// alive (not revoked, not expired), so a viewer who got in can finish watching. `/v1/share/{linkId}`
// is a small watch page playing the link with hls.js, which this node serves itself.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import type { Db } from '@kino/database';
import { countShareLinkView, findShareLink } from '@kino/database/repositories';
import { shareLinkPaths } from '@kino/proto/contract';
import { DeliveryError } from './errors.ts';

const maxEntries = 50_000;

type LinkState = { videoId: string } | DeliveryError;

export class ShareLinkGate {
  private readonly entries = new Map<string, { state: LinkState; expiresAt: number }>();

  constructor(
    private readonly db: Db,
    /** How long a live link is trusted without asking the database (as the video catalog's TTL). */
    private readonly ttlMs: number,
  ) {}

  /**
   * The video a link opens. `countView` (master playlists): counts one view, atomically, or
   * refuses a used-up link; otherwise the link only has to be alive.
   */
  async open(linkId: string, { countView }: { countView: boolean }): Promise<string> {
    if (countView) {
      const counted = await countShareLinkView(this.db, linkId);
      if (counted) return counted.video_id;
      throw stateOf(await findShareLink(this.db, linkId), linkId) as DeliveryError;
    }
    const cached = this.entries.get(linkId);
    let state = cached && cached.expiresAt > Date.now() ? cached.state : undefined;
    if (!state) {
      state = stateOf(await findShareLink(this.db, linkId), linkId, { ignoreViews: true });
      if (this.entries.size >= maxEntries) this.entries.clear();
      this.entries.set(linkId, { state, expiresAt: Date.now() + this.ttlMs });
    }
    if (state instanceof DeliveryError) throw state;
    return state.videoId;
  }
}

function stateOf(
  link: Awaited<ReturnType<typeof findShareLink>>,
  linkId: string,
  { ignoreViews = false }: { ignoreViews?: boolean } = {},
): LinkState {
  if (!link) return new DeliveryError(404, 'share_link_not_found', `There is no share link ${linkId}.`);
  if (link.revoked_at) return new DeliveryError(410, 'share_link_revoked', 'This share link was revoked by the video\'s owner.');
  if (link.expired) return new DeliveryError(410, 'share_link_expired', `This share link expired at ${link.expires_at.toISOString()}.`);
  if (!ignoreViews && link.max_views !== null && link.views >= link.max_views) {
    return new DeliveryError(410, 'share_link_used_up', `This share link has been opened ${link.max_views} times, its limit.`);
  }
  return { videoId: link.video_id };
}

let playerScript: Promise<Buffer> | undefined;

/** hls.js (its minified build), read once from the installed package: no CDN. */
export function hlsPlayerScript(): Promise<Buffer> {
  playerScript ??= readFile(createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js'));
  return playerScript;
}

/** The watch page of a link: a video element playing its master playlist (native HLS in Safari). */
export function watchPage(linkId: string): Buffer {
  // linkId matched the path pattern ([A-Za-z0-9_-]), so it is safe inside HTML and a JS string.
  const src = shareLinkPaths.master(linkId);
  return Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shared video</title>
<style>
  html, body { margin: 0; height: 100%; background: #000; color: #eee; font: 16px system-ui, sans-serif; }
  video { width: 100%; height: 100%; }
  #message { position: absolute; top: 40%; width: 100%; text-align: center; }
</style>
</head>
<body>
<video id="player" controls playsinline></video>
<div id="message" hidden></div>
<script src="${shareLinkPaths.playerScript}"></script>
<script>
  const src = '${src}';
  const video = document.getElementById('player');
  const message = document.getElementById('message');
  function show(text) { message.textContent = text; message.hidden = false; video.hidden = true; }
  async function explain() {
    try { const r = await fetch(src); if (!r.ok) show((await r.json()).detail); } catch { show('This video cannot be played.'); }
  }
  if (window.Hls && Hls.isSupported()) {
    const hls = new Hls();
    hls.on(Hls.Events.ERROR, (_, data) => { if (data.fatal && data.details === 'manifestLoadError') explain(); });
    hls.loadSource(src);
    hls.attachMedia(video);
  } else if (video.canPlayType('application/vnd.apple.mpegurl')) {
    video.src = src;
  } else {
    show('This browser cannot play HLS.');
  }
</script>
</body>
</html>
`);
}
