// "Upload videos": files chosen or dropped on the drop zone go up at once, several side by side, each
// minted through the API with the session (upload.ts), sent straight to storage by the SDK's browser
// entry (`uploadFile`: parts in parallel, progress) and then processed; or a URL, which the API
// ingests (Kino fetches it). Quality, access, the encoding options (mode, extra codecs) and a
// watermark (an image uploaded once to the environment, then named by each video) apply to both.
// Each gets a row with its progress and, once processing has started, a link to its video page.
import { useRef, useState } from 'preact/hooks';
import type {
  AdditionalVideoCodec,
  EncodingMode,
  Image,
  ProcessVideoResult,
  VideoQuality,
  WatermarkPosition,
  WatermarkRequest,
} from '@kino/sdk';
import { uploadFile, type UploadProgress } from '@kino/sdk/browser';
import {
  additionalVideoCodecs,
  encodingModes,
  imageContentTypes,
  uploadContentTypeByExtension,
  uploadContentTypes,
  watermarkPositions,
} from '@kino/proto/contract';
import { api, API_ROOT, json } from '../../api.ts';
import { encodingModeLabels, videoCodecLabels } from '../../setting-labels.ts';
import { completeDirectUpload, mintDirectUpload, type SessionApi } from './upload.ts';
import './upload-panel.css';

/** The file picker offers what the API accepts: by content type, and by extension for files the browser has no type for. */
const acceptedFiles = [
  ...uploadContentTypes,
  ...Object.keys(uploadContentTypeByExtension).map((extension) => `.${extension}`),
].join(',');

const sessionApi: SessionApi = <T,>(path: string, init: { method: 'POST'; body?: unknown }) =>
  api<T>(`${API_ROOT}${path}`, init.body === undefined ? { method: init.method } : json(init.method, init.body));

const qualities: ReadonlyArray<{ value: VideoQuality; label: string }> = [
  { value: 'standard', label: 'Standard (360p–720p)' },
  { value: 'high', label: 'High (480p–1080p)' },
  { value: 'ultra', label: 'Ultra (720p–2160p)' },
];

/** One file or URL on its way to becoming a video. */
interface Row {
  key: number;
  /** The file's name, or the URL. */
  label: string;
  state: 'uploading' | 'processing' | 'done' | 'failed';
  progress?: UploadProgress;
  videoId?: string;
  error?: string;
  cancel?: AbortController;
}

/** A file's bytes in base64, as POST .../images takes them (a data URL, its prefix dropped). */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`;

export interface UploadPanelProps {
  orgId: string;
  envId: string;
  /** Called with each new video's id once processing has started. */
  onProcessing?: (videoId: string) => void;
}

export function UploadPanel({ orgId, envId, onProcessing }: UploadPanelProps) {
  const [sourceUrl, setSourceUrl] = useState('');
  const [urlName, setUrlName] = useState('');
  const [quality, setQuality] = useState<VideoQuality>('standard');
  const [isPublic, setPublic] = useState(false);
  const [encodingMode, setEncodingMode] = useState<EncodingMode>('fixed');
  const [extraCodecs, setExtraCodecs] = useState<ReadonlySet<AdditionalVideoCodec>>(new Set());
  const [watermarkFile, setWatermarkFile] = useState<File | null>(null);
  const [watermarkPosition, setWatermarkPosition] = useState<WatermarkPosition>('top-right');
  const [dragging, setDragging] = useState(false);
  const [rows, setRows] = useState<Row[]>([]);
  const nextKey = useRef(1);
  // The chosen image is uploaded once, when the first video needs it; the next videos name the same id.
  const watermarkImage = useRef<{ file: File; imageId: Promise<string> } | null>(null);
  const watermark = async (): Promise<{ watermark?: WatermarkRequest }> => {
    if (!watermarkFile) return {};
    if (watermarkImage.current?.file !== watermarkFile) {
      const imageId = base64Of(watermarkFile)
        .then((content) => api<Image>(`${API_ROOT}/${orgId}/environments/${envId}/images`, json('POST', { content })))
        .then((image) => image.imageId);
      // A failed upload is tried again by the next video.
      imageId.catch(() => (watermarkImage.current = null));
      watermarkImage.current = { file: watermarkFile, imageId };
    }
    return { watermark: { imageId: await watermarkImage.current.imageId, position: watermarkPosition } };
  };

  const update = (key: number, change: Partial<Row>) =>
    setRows((all) => all.map((row) => (row.key === key ? { ...row, ...change } : row)));
  const add = (row: Omit<Row, 'key'>): number => {
    const key = nextKey.current++;
    setRows((all) => [...all, { ...row, key }]);
    return key;
  };
  const started = (key: number, videoId: string) => {
    update(key, { state: 'done', videoId, cancel: undefined });
    onProcessing?.(videoId);
  };
  // What process and ingest both take beside the source: the settings above the drop zone.
  const options = () => ({
    videoQuality: quality,
    allowPublicAccess: isPublic,
    encodingMode,
    additionalCodecs: additionalVideoCodecs.filter((codec) => extraCodecs.has(codec)),
  });
  const failed = (key: number, error: unknown, cancel?: AbortController) =>
    update(key, {
      state: 'failed',
      error: cancel?.signal.aborted ? 'Upload cancelled.' : (error as Error).message,
      cancel: undefined,
    });

  async function send(file: File) {
    const cancel = new AbortController();
    const key = add({ label: file.name, state: 'uploading', cancel });
    const target = { orgId, envId };
    try {
      const upload = await mintDirectUpload(sessionApi, target, file);
      await uploadFile(file, upload, { signal: cancel.signal, onProgress: (progress) => update(key, { progress }) });
      update(key, { state: 'processing', cancel: undefined });
      const storagePath = await completeDirectUpload(sessionApi, target, upload);
      const marked = await watermark();
      const { videoID } = await api<ProcessVideoResult>(
        `${API_ROOT}/${orgId}/environments/${envId}/videos/process`,
        json('POST', { storagePath, ...options(), ...marked, videoName: file.name.replace(/\.[^.]+$/, '') }),
      );
      started(key, videoID);
    } catch (error) {
      failed(key, error, cancel);
    }
  }

  async function ingest(event: Event) {
    event.preventDefault();
    const url = sourceUrl.trim();
    if (!url) return;
    const key = add({ label: url, state: 'processing' });
    setSourceUrl('');
    setUrlName('');
    try {
      const marked = await watermark();
      const { videoID } = await api<ProcessVideoResult>(
        `${API_ROOT}/${orgId}/environments/${envId}/videos/ingest`,
        json('POST', { url, ...options(), ...marked, ...(urlName.trim() ? { videoName: urlName.trim() } : {}) }),
      );
      started(key, videoID);
    } catch (error) {
      failed(key, error);
    }
  }

  const sendAll = (files: FileList | null | undefined) => {
    for (const file of Array.from(files ?? [])) void send(file);
  };

  return (
    <div class="upload-panel" data-testid="upload-panel">
      <div class="upload-settings">
        <label>
          Quality
          <select
            value={quality}
            data-testid="upload-quality"
            onChange={(event) => setQuality(event.currentTarget.value as VideoQuality)}
          >
            {qualities.map((q) => (
              <option key={q.value} value={q.value}>
                {q.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Encoding
          <select
            value={encodingMode}
            data-testid="upload-encoding-mode"
            onChange={(event) => setEncodingMode(event.currentTarget.value as EncodingMode)}
          >
            {encodingModes.map((mode) => (
              <option key={mode} value={mode}>
                {encodingModeLabels[mode]}
              </option>
            ))}
          </select>
        </label>
        {/* H.264 is always made: these add renditions beside it. */}
        <div class="upload-codecs" role="group" aria-label="Extra codecs">
          <span>Extra codecs</span>
          <div>
            {additionalVideoCodecs.map((codec) => (
              <label key={codec}>
                <input
                  type="checkbox"
                  checked={extraCodecs.has(codec)}
                  data-testid={`upload-codec-${codec}`}
                  onChange={(event) => {
                    const checked = event.currentTarget.checked;
                    setExtraCodecs((chosen) => {
                      const next = new Set(chosen);
                      if (checked) next.add(codec);
                      else next.delete(codec);
                      return next;
                    });
                  }}
                />{' '}
                {videoCodecLabels[codec]}
              </label>
            ))}
          </div>
        </div>
        {/* An image (PNG or JPEG, at most 2 MB) burnt into every rendition, 12 % of the picture's width. */}
        <label>
          Watermark
          <input
            type="file"
            accept={Object.values(imageContentTypes).join(',')}
            data-testid="upload-watermark"
            onChange={(event) => setWatermarkFile(event.currentTarget.files?.[0] ?? null)}
          />
        </label>
        <label>
          Watermark position
          <select
            value={watermarkPosition}
            disabled={!watermarkFile}
            data-testid="upload-watermark-position"
            onChange={(event) => setWatermarkPosition(event.currentTarget.value as WatermarkPosition)}
          >
            {watermarkPositions.map((position) => (
              <option key={position} value={position}>
                {position}
              </option>
            ))}
          </select>
        </label>
        <label class="checkbox">
          <span>
            <input
              type="checkbox"
              checked={isPublic}
              data-testid="upload-public"
              onChange={(event) => setPublic(event.currentTarget.checked)}
            />{' '}
            Public
          </span>
        </label>
      </div>
      <label
        class={`upload-drop${dragging ? ' upload-drop-over' : ''}`}
        data-testid="upload-drop"
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          sendAll(event.dataTransfer?.files);
        }}
      >
        <span>Drop video files here, or choose them</span>
        <input
          type="file"
          multiple
          accept={acceptedFiles}
          data-testid="upload-file"
          onChange={(event) => {
            sendAll(event.currentTarget.files);
            event.currentTarget.value = '';
          }}
        />
      </label>
      <form class="upload-ingest" onSubmit={(event) => void ingest(event)}>
        <label>
          or a URL for Kino to fetch
          <input
            type="url"
            placeholder="https://…"
            value={sourceUrl}
            data-testid="upload-url"
            onInput={(event) => setSourceUrl(event.currentTarget.value)}
          />
        </label>
        <label>
          Name
          <input
            value={urlName}
            placeholder="from the URL"
            data-testid="upload-name"
            onInput={(event) => setUrlName(event.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={!sourceUrl.trim()} data-testid="upload-ingest">
          Ingest
        </button>
      </form>
      {rows.length > 0 && (
        <ul class="upload-rows">
          {rows.map((row) => (
            <li key={row.key} data-testid="upload-row" data-state={row.state}>
              <span class="upload-row-label">{row.label}</span>
              {row.state === 'uploading' && (
                <>
                  <progress
                    max={row.progress?.totalBytes ?? 1}
                    value={row.progress?.bytesSent ?? 0}
                    data-testid="upload-progress"
                  />
                  <span class="muted">
                    {row.progress
                      ? `${megabytes(row.progress.bytesSent)} of ${megabytes(row.progress.totalBytes)}`
                      : 'Starting…'}
                  </span>
                  <button type="button" onClick={() => row.cancel?.abort()}>
                    Cancel
                  </button>
                </>
              )}
              {row.state === 'processing' && <span class="muted">Starting processing…</span>}
              {row.state === 'done' && (
                <span data-testid="upload-done">
                  Processing: <a href={`/dashboard/videos/${row.videoId}`}>{row.videoId}</a>
                </span>
              )}
              {row.state === 'failed' && (
                <span class="error" role="alert" data-testid="upload-error">
                  {row.error}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
