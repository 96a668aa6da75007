// <kino-player>: Kino's web player (docs/decisions/player.md). hls.js plays the master playlist
// into a <video> in the element's shadow root; the control bar around it is the element's own: play,
// seek with storyboard previews, time, mute and volume, captions, quality and speed menus,
// picture-in-picture and fullscreen, every control a labelled native button or slider, and the
// player's keys (space, arrows, f, m, c) wherever focus is inside it.
import Hls, { type ErrorData } from 'hls.js';
import { createMenu, type MenuChoice } from './menu.ts';
import { sourcesOf, type PlayerSources } from './sources.ts';
import { parseStoryboard, tileAt, type StoryboardTile } from './storyboard.ts';
import { beaconTargetOf, ViewReport } from './view-report.ts';

export const playbackSpeeds = [0.5, 0.75, 1, 1.25, 1.5, 2] as const;
/** What an arrow key seeks by, as YouTube's and Mux Player's arrows do. */
export const seekStepSeconds = 5;
const volumeStep = 0.1;

const styles = `
:host { display: block; position: relative; background: #000; color: #fff; font: 14px system-ui, sans-serif; aspect-ratio: 16 / 9; container-type: inline-size; }
:host(:fullscreen) { aspect-ratio: auto; }
.frame, video { width: 100%; height: 100%; }
.frame { position: relative; overflow: hidden; }
video { display: block; object-fit: contain; }
.bar { position: absolute; left: 0; right: 0; bottom: 0; display: flex; align-items: center; gap: 4px; padding: 4px 8px; background: rgba(0, 0, 0, 0.8); transition: opacity 0.3s; }
.frame.playing:not(:hover):not(:focus-within) .bar { opacity: 0; }
button { background: none; border: 0; color: #fff; font: inherit; padding: 6px 8px; cursor: pointer; border-radius: 4px; white-space: nowrap; }
button:hover, button:focus-visible, input:focus-visible { outline: 2px solid #7cc4ff; outline-offset: -2px; }
[hidden] { display: none !important; }
/* A phone-wide player keeps its menus: the volume slider and the clock give way, and the bar wraps. */
@container (max-width: 480px) { .volume, .time { display: none; } .bar { flex-wrap: wrap; } }
.seek { flex: 1; min-width: 60px; }
.volume { width: 70px; }
.time { font-variant-numeric: tabular-nums; padding: 0 4px; white-space: nowrap; }
.menu { position: relative; }
[role='menu'] { position: absolute; bottom: 100%; right: 0; display: flex; flex-direction: column; background: #1b1b1b; border-radius: 4px; padding: 4px; max-height: 60vh; overflow-y: auto; }
[role='menuitemradio'] { text-align: left; }
[role='menuitemradio'][aria-checked='true']::before { content: '\\2713  '; }
.preview { position: absolute; bottom: 48px; transform: translateX(-50%); pointer-events: none; text-align: center; }
.tile { border: 2px solid #fff; background-repeat: no-repeat; }
.message { position: absolute; top: 40%; width: 100%; text-align: center; }
`;

let sharedSheet: CSSStyleSheet | undefined;

/** One sheet for every player on the page. */
function playerStyleSheet(): CSSStyleSheet {
  if (!sharedSheet) {
    sharedSheet = new CSSStyleSheet();
    sharedSheet.replaceSync(styles);
  }
  return sharedSheet;
}

/** `1:05`, `1:02:05`. */
export function formatTime(seconds: number): string {
  const whole = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0;
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor(whole / 60) % 60, whole % 60];
  const mm = h ? String(m).padStart(2, '0') : String(m);
  return `${h ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  properties: Partial<HTMLElementTagNameMap[K]> = {},
  attributes: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), properties);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function button(className: string, label: string): HTMLButtonElement {
  return element('button', { type: 'button', className }, { 'aria-label': label });
}

export class KinoPlayerElement extends HTMLElement {
  static readonly observedAttributes = [
    'src',
    'playback-id',
    'token',
    'delivery-url',
    'poster',
    'storyboard',
    'beacons',
  ];

  /** The <video> being played: listen to its media events, read its state. */
  readonly media = element('video', { playsInline: true, crossOrigin: 'anonymous' });
  #hls: Hls | null = null;
  /** The view being reported to the delivery host (view-report.ts), or null with `beacons="off"`. */
  #view: ViewReport | null = null;
  #loadQueued = false;
  #tiles: StoryboardTile[] = [];
  readonly #frame = element('div', { className: 'frame' });
  readonly #playButton = button('play', 'Play');
  readonly #seek = element('input', { type: 'range', className: 'seek', min: '0', max: '0', step: 'any', value: '0' });
  readonly #time = element('span', { className: 'time' });
  readonly #muteButton = button('mute', 'Mute');
  readonly #volume = element('input', {
    type: 'range',
    className: 'volume',
    min: '0',
    max: '1',
    step: String(volumeStep),
  });
  readonly #pipButton = button('pip', 'Picture in picture');
  readonly #fullscreenButton = button('fullscreen', 'Fullscreen');
  readonly #preview = element('div', { className: 'preview', hidden: true });
  readonly #tile = element('div', { className: 'tile' });
  readonly #previewTime = element('div');
  readonly #message = element('div', { className: 'message', hidden: true }, { role: 'alert' });
  readonly #captions = createMenu('Captions', (value) => this.#selectCaptions(Number(value)));
  readonly #quality = createMenu('Quality', (value) => {
    if (this.#hls) this.#hls.currentLevel = Number(value);
  });
  readonly #speed = createMenu('Speed', (value) => (this.media.playbackRate = Number(value)));

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    this.#seek.setAttribute('aria-label', 'Seek');
    this.#volume.setAttribute('aria-label', 'Volume');
    this.#preview.append(this.#tile, this.#previewTime);
    const bar = element('div', { className: 'bar' }, { role: 'group', 'aria-label': 'Player controls' });
    bar.append(
      this.#playButton,
      this.#seek,
      this.#time,
      this.#muteButton,
      this.#volume,
      this.#captions.element,
      this.#quality.element,
      this.#speed.element,
      this.#pipButton,
      this.#fullscreenButton,
    );
    this.#frame.append(this.media, this.#preview, this.#message, bar);
    // A constructed stylesheet rather than a <style> element: a page whose Content-Security-Policy
    // refuses inline styles (the dashboard's) still styles the player.
    root.adoptedStyleSheets = [playerStyleSheet()];
    root.append(this.#frame);
    this.#speed.setChoices(
      playbackSpeeds.map((speed) => ({ label: speed === 1 ? 'Normal' : `${speed}×`, value: String(speed) })),
      '1',
    );
    this.#captions.setChoices([], '');
    this.#quality.setChoices([], '');
    this.#wireControls();
  }

  /** hls.js playing the video (its levels, tracks and events), or null before loading and with native HLS. */
  get hls(): Hls | null {
    return this.#hls;
  }

  /**
   * The wall-clock time of the picture showing, from the stream's `EXT-X-PROGRAM-DATE-TIME`, or null
   * when the stream names none. `Date.now()` minus it is how far behind the stream's clock the viewer
   * is (a live broadcast's: the time each frame was encoded, meant to be when it was published).
   */
  get programDateTime(): Date | null {
    if (this.#hls) return this.#hls.playingDate;
    // Native HLS (Safari): the playlist's first date plus the time played.
    const start = (this.media as HTMLVideoElement & { getStartDate?(): Date }).getStartDate?.();
    return start && !Number.isNaN(start.getTime()) ? new Date(start.getTime() + this.media.currentTime * 1000) : null;
  }

  play(): Promise<void> {
    return this.media.play();
  }

  pause(): void {
    this.media.pause();
  }

  connectedCallback(): void {
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    if (!this.hasAttribute('role')) this.setAttribute('role', 'region');
    if (!this.hasAttribute('aria-label')) this.setAttribute('aria-label', 'Video player');
    this.#queueLoad();
  }

  disconnectedCallback(): void {
    this.#endView();
    this.#hls?.destroy();
    this.#hls = null;
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.#queueLoad();
  }

  /** One load for the attributes set together (a parsed tag sets them one by one). */
  #queueLoad(): void {
    if (this.#loadQueued) return;
    this.#loadQueued = true;
    queueMicrotask(() => {
      this.#loadQueued = false;
      if (this.isConnected) this.#load();
    });
  }

  #load(): void {
    this.#endView();
    this.#hls?.destroy();
    this.#hls = null;
    this.#message.hidden = true;
    const sources = sourcesOf({
      src: this.getAttribute('src'),
      playbackId: this.getAttribute('playback-id'),
      token: this.getAttribute('token'),
      deliveryUrl: this.getAttribute('delivery-url'),
      poster: this.getAttribute('poster'),
      storyboard: this.getAttribute('storyboard'),
    });
    if (!sources) return;
    this.media.muted = this.hasAttribute('muted');
    this.media.autoplay = this.hasAttribute('autoplay');
    if (sources.poster) this.media.poster = sources.poster;
    void this.#loadStoryboard(sources.storyboard);
    this.#startView(sources.master);
    if (Hls.isSupported()) this.#attachHls(sources);
    else if (this.media.canPlayType('application/vnd.apple.mpegurl')) this.media.src = sources.master;
    else this.#show('This browser cannot play HLS.');
  }

  #attachHls(sources: PlayerSources): void {
    // A live viewer left behind (a slow start, a stall) catches up by playing up to 1.5x until it is
    // back at the target latency; hls.js's default (1) never catches up. Nothing changes on demand.
    const hls = new Hls({ maxLiveSyncPlaybackRate: 1.5 });
    this.#hls = hls;
    let mediaRecoveries = 0;
    // The element's handler below runs after the view's: a media error the first time is recovered.
    this.#view?.watch(hls, (data) => data.type === Hls.ErrorTypes.MEDIA_ERROR && mediaRecoveries < 1);
    hls.on(Hls.Events.MANIFEST_PARSED, () => this.#listLevels(hls));
    hls.on(Hls.Events.SUBTITLE_TRACKS_UPDATED, () => this.#listCaptions(hls));
    hls.on(Hls.Events.SUBTITLE_TRACK_SWITCH, () => this.#captions.setSelected(String(hls.subtitleTrack)));
    hls.on(Hls.Events.ERROR, (_event, data: ErrorData) => {
      if (!data.fatal) return;
      if (data.type === Hls.ErrorTypes.MEDIA_ERROR && mediaRecoveries++ < 1) hls.recoverMediaError();
      else if (data.details === Hls.ErrorDetails.MANIFEST_LOAD_ERROR) void this.#explain(sources.master);
      else this.#show(`This video cannot be played (${data.details}).`);
    });
    hls.loadSource(sources.master);
    hls.attachMedia(this.media);
  }

  /** Starts reporting a view of `master`, unless `beacons="off"` or the master names no video delivery knows. */
  #startView(master: string): void {
    if (this.getAttribute('beacons') === 'off') return;
    const url = new URL(master, document.baseURI);
    const target = beaconTargetOf(url);
    // The master carries the token (sourcesOf puts the attribute's there; a signed `src` has its own).
    if (target) this.#view = new ViewReport(this.media, url, target, url.searchParams.get('token'));
  }

  #endView(): void {
    this.#view?.end(false);
    this.#view = null;
  }

  #listLevels(hls: Hls): void {
    const levels = hls.levels.map((level, index) => ({ level, index })).filter(({ level }) => level.height > 0);
    const heights = levels.map(({ level }) => level.height);
    const choices: MenuChoice[] = levels
      .sort((a, b) => b.level.height - a.level.height || b.level.bitrate - a.level.bitrate)
      .map(({ level, index }) => {
        // Two rungs of one height are two codecs: the codec family tells them apart.
        const twin = heights.filter((height) => height === level.height).length > 1;
        const codec = twin ? ` ${(level.videoCodec ?? '').split('.')[0]}` : '';
        return { label: `${level.height}p${codec}`, value: String(index) };
      });
    this.#quality.setChoices(choices.length > 1 ? [{ label: 'Auto', value: '-1' }, ...choices] : [], '-1');
  }

  #listCaptions(hls: Hls): void {
    const tracks = hls.subtitleTracks.map((track, index) => ({
      label: track.name || track.lang || `Track ${index + 1}`,
      value: String(index),
    }));
    this.#captions.setChoices(
      tracks.length ? [{ label: 'Off', value: '-1' }, ...tracks] : [],
      String(hls.subtitleTrack),
    );
  }

  #selectCaptions(index: number): void {
    if (!this.#hls) return;
    this.#hls.subtitleDisplay = index >= 0;
    this.#hls.subtitleTrack = index;
  }

  async #loadStoryboard(url: string | null): Promise<void> {
    this.#tiles = [];
    if (!url) return;
    try {
      const response = await fetch(url);
      // A video without a storyboard (or a share link, which serves none) has no previews.
      if (response.ok) this.#tiles = parseStoryboard(await response.text(), response.url || url);
    } catch {
      this.#tiles = [];
    }
  }

  /** Delivery's reason a playlist was refused (its error envelope's detail), instead of a black frame. */
  async #explain(master: string): Promise<void> {
    try {
      const response = await fetch(master);
      const body = (await response.json()) as { detail?: string };
      this.#show(!response.ok && body.detail ? body.detail : 'This video cannot be played.');
    } catch {
      this.#show('This video cannot be played.');
    }
  }

  #show(text: string): void {
    this.#message.textContent = text;
    this.#message.hidden = false;
  }

  #togglePlay(): void {
    if (this.media.paused || this.media.ended) void this.media.play().catch(() => undefined);
    else this.media.pause();
  }

  #seekBy(seconds: number): void {
    const duration = Number.isFinite(this.media.duration) ? this.media.duration : 0;
    this.media.currentTime = Math.min(Math.max(0, this.media.currentTime + seconds), duration);
  }

  #toggleFullscreen(): void {
    if (document.fullscreenElement === this) void document.exitFullscreen();
    else void this.requestFullscreen().catch(() => undefined);
  }

  #togglePictureInPicture(): void {
    if (document.pictureInPictureElement === this.media) void document.exitPictureInPicture();
    else void this.media.requestPictureInPicture().catch(() => undefined);
  }

  #showPreview(event: PointerEvent): void {
    const box = this.#seek.getBoundingClientRect();
    const fraction = Math.min(Math.max(0, (event.clientX - box.left) / box.width), 1);
    const time = fraction * (this.media.duration || 0);
    const tile = tileAt(this.#tiles, time);
    this.#preview.hidden = !tile;
    if (!tile) return;
    Object.assign(this.#tile.style, {
      width: `${tile.width}px`,
      height: `${tile.height}px`,
      backgroundImage: `url("${tile.sheet}")`,
      backgroundPosition: `${-tile.x}px ${-tile.y}px`,
    });
    this.#previewTime.textContent = formatTime(time);
    const frame = this.#frame.getBoundingClientRect();
    const half = tile.width / 2 + 2;
    this.#preview.style.left = `${Math.min(Math.max(half, event.clientX - frame.left), frame.width - half)}px`;
  }

  #onKey(event: KeyboardEvent): void {
    const target = event.composedPath()[0];
    // Buttons and the volume slider keep their own keys; the seek bar's arrows seek by the player's step.
    const onButton = target instanceof HTMLButtonElement;
    const onVolume = target === this.#volume;
    const actions: Record<string, () => void> = {
      ' ': () => this.#togglePlay(),
      k: () => this.#togglePlay(),
      ArrowLeft: () => this.#seekBy(-seekStepSeconds),
      ArrowRight: () => this.#seekBy(seekStepSeconds),
      ArrowUp: () => (this.media.volume = Math.min(1, this.media.volume + volumeStep)),
      ArrowDown: () => (this.media.volume = Math.max(0, this.media.volume - volumeStep)),
      f: () => this.#toggleFullscreen(),
      m: () => (this.media.muted = !this.media.muted),
      c: () => this.#selectCaptions(this.#hls && this.#hls.subtitleTrack < 0 ? 0 : -1),
    };
    const action = actions[event.key];
    if (!action || event.ctrlKey || event.metaKey || event.altKey) return;
    if ((onButton && (event.key === ' ' || event.key === 'Enter')) || (onVolume && event.key.startsWith('Arrow')))
      return;
    event.preventDefault();
    action();
  }

  #wireControls(): void {
    const media = this.media;
    const update = () => {
      const paused = media.paused || media.ended;
      this.#playButton.setAttribute('aria-label', paused ? 'Play' : 'Pause');
      this.#playButton.textContent = paused ? '\u25B6' : '\u275A\u275A';
      this.#frame.classList.toggle('playing', !paused);
    };
    const updateTime = () => {
      const duration = Number.isFinite(media.duration) ? media.duration : 0;
      this.#seek.max = String(duration);
      this.#seek.value = String(media.currentTime);
      const text = `${formatTime(media.currentTime)} / ${formatTime(duration)}`;
      this.#time.textContent = text;
      this.#seek.setAttribute('aria-valuetext', `${formatTime(media.currentTime)} of ${formatTime(duration)}`);
    };
    const updateVolume = () => {
      const muted = media.muted || media.volume === 0;
      this.#muteButton.setAttribute('aria-label', muted ? 'Unmute' : 'Mute');
      this.#muteButton.textContent = muted ? '\u{1F507}' : '\u{1F50A}';
      this.#volume.value = String(media.muted ? 0 : media.volume);
    };
    for (const name of ['play', 'pause', 'ended', 'emptied']) media.addEventListener(name, update);
    for (const name of ['timeupdate', 'durationchange', 'seeking', 'emptied']) media.addEventListener(name, updateTime);
    media.addEventListener('volumechange', updateVolume);
    media.addEventListener('ratechange', () => this.#speed.setSelected(String(media.playbackRate)));
    media.addEventListener('click', () => this.#togglePlay());
    this.#playButton.addEventListener('click', () => this.#togglePlay());
    this.#seek.addEventListener('input', () => (media.currentTime = Number(this.#seek.value)));
    this.#seek.addEventListener('pointermove', (event) => this.#showPreview(event));
    this.#seek.addEventListener('pointerleave', () => (this.#preview.hidden = true));
    this.#muteButton.addEventListener('click', () => (media.muted = !media.muted));
    this.#volume.addEventListener('input', () => {
      media.volume = Number(this.#volume.value);
      media.muted = media.volume === 0;
    });
    this.#pipButton.hidden = !document.pictureInPictureEnabled;
    this.#pipButton.addEventListener('click', () => this.#togglePictureInPicture());
    this.#fullscreenButton.hidden = !document.fullscreenEnabled;
    this.#fullscreenButton.addEventListener('click', () => this.#toggleFullscreen());
    document.addEventListener('fullscreenchange', () =>
      this.#fullscreenButton.setAttribute(
        'aria-label',
        document.fullscreenElement === this ? 'Exit fullscreen' : 'Fullscreen',
      ),
    );
    this.addEventListener('keydown', (event) => this.#onKey(event));
    update();
    updateTime();
    updateVolume();
    // Drawn, not characters: ⧉ and ⛶ are missing from many systems' fonts and showed as empty boxes.
    this.#pipButton.replaceChildren(icon('M3 5h18v14H3z M12 12h7v5h-7z'));
    this.#fullscreenButton.replaceChildren(icon('M4 9V4h5 M15 4h5v5 M20 15v5h-5 M9 20H4v-5'));
  }
}

/** A 24 px line icon of `path`, hidden from assistive technology (its button carries the label). */
function icon(path: string): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', '18');
  svg.setAttribute('height', '18');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('fill', 'none');
  svg.setAttribute('stroke', 'currentColor');
  svg.setAttribute('stroke-width', '2');
  const shape = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  shape.setAttribute('d', path);
  svg.append(shape);
  return svg;
}

if (!customElements.get('kino-player')) customElements.define('kino-player', KinoPlayerElement);

declare global {
  interface HTMLElementTagNameMap {
    'kino-player': KinoPlayerElement;
  }
}
