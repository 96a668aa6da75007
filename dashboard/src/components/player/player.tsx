// The HLS player: hls.js where Media Source Extensions exist (Chromium, Firefox), the browser's own
// HLS otherwise (Safari). hls.js is loaded on first use, so pages without a player stay small.
// `src` is always a signed playback URL minted by the API for the session (private and public
// videos alike): the browser never holds a key, and one code path plays both.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface PlayerProps {
  src: string;
  /** The element, once attached (the thumbnail picker seeks it, tests listen for `ended`). */
  onVideoElement?: (video: HTMLVideoElement | null) => void;
}

export function Player({ src, onVideoElement }: PlayerProps) {
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
        hls.loadSource(src);
        hls.attachMedia(video);
        destroy = () => hls.destroy();
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
      <video ref={videoRef} controls playsInline preload="metadata" data-testid="player" />
      {error && (
        <p class="error" role="alert" data-testid="player-error">
          Playback failed: {error}
        </p>
      )}
    </div>
  );
}
