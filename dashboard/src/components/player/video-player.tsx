// The video page's player: Kino's own <kino-player> (@kino/player, the element the embed and share
// pages use: captions, quality and speed menus, storyboard previews on the seek bar, keys), loaded on
// first use so pages without a player stay small. `src` is always a signed playback URL minted by the
// API for the session (private and public videos alike): the browser never holds a key.
import { useEffect, useRef } from 'preact/hooks';
import type { Events, ManifestParsedData } from 'hls.js';

export interface VideoPlayerProps {
  src: string;
  /** The picture shown before play (the video's thumbnail). */
  poster?: string;
  /** The storyboard's WebVTT (the details' `storyboardUrl`), for previews on the seek bar. */
  storyboard?: string;
  /**
   * The caption languages the video has now. Delivery may answer a master playlist from its video
   * metadata for up to DELIVERY_METADATA_TTL_MS (2 s) after a track is added: a master lacking one
   * is loaded again, a second apart, a few times.
   */
  subtitleLanguages?: readonly string[];
  /** The player's <video>, once attached (the thumbnail picker seeks it, the clip maker reads its time). */
  onVideoElement?: (video: HTMLVideoElement | null) => void;
}

/** Reloads of a master playlist that lacks an expected caption track; past them, the player plays what it has. */
const masterReloads = 5;

export function VideoPlayer({ src, poster, storyboard, subtitleLanguages = [], onVideoElement }: VideoPlayerProps) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let stopped = false;
    let reload: ReturnType<typeof setTimeout> | undefined;
    let player: HTMLElementTagNameMap['kino-player'] | undefined;
    // The element is made here rather than in JSX: it exists once its module (and hls.js in it) has loaded.
    void import('@kino/player').then(() => {
      if (stopped || !box.current) return;
      const made = document.createElement('kino-player');
      player = made;
      made.dataset.testid = 'player';
      if (poster) made.setAttribute('poster', poster);
      if (storyboard) made.setAttribute('storyboard', storyboard);
      made.setAttribute('src', src);
      box.current.replaceChildren(made);
      onVideoElement?.(made.media);
      let reloads = 0;
      // The element loads in a microtask after its attributes change: watch the hls.js it made then.
      const watch = () =>
        made.hls?.once('hlsManifestParsed' as Events.MANIFEST_PARSED, (_event, data: ManifestParsedData) => {
          const listed = new Set(data.subtitleTracks.map((track) => track.lang));
          if (stopped || reloads >= masterReloads || subtitleLanguages.every((language) => listed.has(language)))
            return;
          reloads += 1;
          reload = setTimeout(() => {
            made.setAttribute('src', src);
            queueMicrotask(watch);
          }, 1000);
        });
      queueMicrotask(watch);
    });
    return () => {
      stopped = true;
      clearTimeout(reload);
      player?.remove();
      onVideoElement?.(null);
    };
  }, [src]);

  // The player's own 16:9 box, black until the element is in it.
  return <div ref={box} class="player-box" />;
}
