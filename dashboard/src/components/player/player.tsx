// The HLS player: hls.js where Media Source Extensions exist (Chromium, Firefox), the browser's own
// HLS otherwise (Safari). hls.js is loaded on first use, so pages without a player stay small.
// `src` is always a signed playback URL minted by the API for the session (private and public
// videos alike): the browser never holds a key, and one code path plays both.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface PlayerProps {
  src: string;
  /** The element, once attached (the thumbnail picker seeks it, tests listen for `ended`). */
  onVideoElement?: (video: HTMLVideoElement | null) => void;
  /**
   * The caption languages the video has now. Delivery may answer a master playlist from its video
   * metadata for up to DELIVERY_METADATA_TTL_MS (2 s) after a track is added: a master lacking one
   * is loaded again, a second apart, a few times.
   */
  subtitleLanguages?: readonly string[];
  /** The picture shown before play (the video's thumbnail). */
  poster?: string;
}

/** Reloads of a master playlist that lacks an expected caption track; past them, the player plays what it has. */
const masterReloads = 5;

/** The master with `bootstrap=true`: the player starts on the video's 2 s bootstrap segments where it has them (issue 55). */
function withBootstrap(src: string): string {
  const url = new URL(src, window.location.href);
  url.searchParams.set('bootstrap', 'true');
  return url.toString();
}

export function Player({ src: master, onVideoElement, subtitleLanguages = [], poster }: PlayerProps) {
  const src = withBootstrap(master);
  const videoRef = useRef<HTMLVideoElement>(null);
  const [error, setError] = useState<string>();

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    onVideoElement?.(video);
    let destroyed = false;
    let destroy = () => {};
    setError(undefined);
    void import('hls.js').then(({ default: Hls }) => {
      if (destroyed) return;
      if (Hls.isSupported()) {
        const hls = new Hls();
        hls.on(Hls.Events.ERROR, (_event, data) => {
          if (data.fatal) setError(`${data.type}: ${data.details}`);
        });
        let reloads = 0;
        let reload: ReturnType<typeof setTimeout> | undefined;
        hls.on(Hls.Events.MANIFEST_PARSED, (_event, data) => {
          const listed = new Set(data.subtitleTracks.map((track) => track.lang));
          if (subtitleLanguages.some((language) => !listed.has(language)) && reloads < masterReloads) {
            reloads += 1;
            reload = setTimeout(() => hls.loadSource(src), 1000);
          }
        });
        hls.loadSource(src);
        hls.attachMedia(video);
        destroy = () => {
          clearTimeout(reload);
          hls.destroy();
        };
      } else if (video.canPlayType('application/vnd.apple.mpegurl')) {
        video.src = src;
        destroy = () => video.removeAttribute('src');
      } else {
        setError('This browser cannot play HLS.');
      }
    });
    return () => {
      destroyed = true;
      destroy();
      onVideoElement?.(null);
    };
  }, [src]);

  return (
    <div class="player">
      <video ref={videoRef} controls playsInline preload="metadata" poster={poster} data-testid="player" />
      {error && (
        <p class="error" role="alert" data-testid="player-error">
          Playback failed: {error}
        </p>
      )}
    </div>
  );
}
