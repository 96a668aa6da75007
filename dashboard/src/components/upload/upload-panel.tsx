// "Upload a video": pick a file and its settings, send it straight to storage with a progress bar
// (upload.ts: one PUT, or parts for a large file), then ask the API to process it; or give a URL
// instead of a file, which the API ingests (Kino fetches it). The new video appears in the table
// as `transcoding`.
import { useRef, useState } from 'preact/hooks';
import type { ProcessVideoResult, VideoQuality } from '@kino/sdk';
import { uploadContentTypeByExtension, uploadContentTypes } from '@kino/proto/contract';
import { api, API_ROOT, json } from '../../api.ts';
import { uploadToStorage, type UploadProgress, type UploadTransport } from './upload.ts';
import { xhrPut } from './xhr-put.ts';

/** The file picker offers what the API accepts: by content type, and by extension for files the browser has no type for. */
const acceptedFiles = [...uploadContentTypes, ...Object.keys(uploadContentTypeByExtension).map((extension) => `.${extension}`)].join(',');

const browserTransport: UploadTransport = {
  api: <T,>(path: string, init: { method: 'POST' | 'DELETE'; body?: unknown }) =>
    api<T>(`${API_ROOT}${path}`, init.body === undefined ? { method: init.method } : json(init.method, init.body)),
  put: xhrPut,
};

const qualities: ReadonlyArray<{ value: VideoQuality; label: string }> = [
  { value: 'standard', label: 'Standard (360p–720p)' },
  { value: 'high', label: 'High (480p–1080p)' },
  { value: 'ultra', label: 'Ultra (720p–2160p)' },
];

type Phase =
  | { name: 'idle' }
  | { name: 'uploading'; progress: UploadProgress }
  | { name: 'processing' }
  | { name: 'done'; videoId: string }
  | { name: 'failed'; message: string };

const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`;

export interface UploadPanelProps {
  orgId: string;
  envId: string;
  /** Called with the new video's id once processing has started. */
  onProcessing?: (videoId: string) => void;
}

export function UploadPanel({ orgId, envId, onProcessing }: UploadPanelProps) {
  const [file, setFile] = useState<File>();
  const [sourceUrl, setSourceUrl] = useState('');
  const [name, setName] = useState('');
  const [quality, setQuality] = useState<VideoQuality>('standard');
  const [isPublic, setPublic] = useState(false);
  const [phase, setPhase] = useState<Phase>({ name: 'idle' });
  const cancel = useRef<AbortController | undefined>(undefined);
  const busy = phase.name === 'uploading' || phase.name === 'processing';

  async function start(event: Event) {
    event.preventDefault();
    const url = sourceUrl.trim();
    if (!file && url) {
      setPhase({ name: 'processing' });
      try {
        const { videoID } = await api<ProcessVideoResult>(
          `${API_ROOT}/${orgId}/environments/${envId}/videos/ingest`,
          json('POST', { url, videoQuality: quality, allowPublicAccess: isPublic, ...(name.trim() ? { videoName: name.trim() } : {}) }),
        );
        setPhase({ name: 'done', videoId: videoID });
        onProcessing?.(videoID);
      } catch (error) {
        setPhase({ name: 'failed', message: (error as Error).message });
      }
      return;
    }
    if (!file) return;
    const controller = new AbortController();
    cancel.current = controller;
    try {
      const uploaded = await uploadToStorage(file, { orgId, envId }, browserTransport, {
        signal: controller.signal,
        onProgress: (progress) => setPhase({ name: 'uploading', progress }),
      });
      setPhase({ name: 'processing' });
      const { videoID } = await api<ProcessVideoResult>(
        `${API_ROOT}/${orgId}/environments/${envId}/videos/process`,
        json('POST', { storagePath: uploaded.bucketPath, videoQuality: quality, allowPublicAccess: isPublic, videoName: name.trim() || file.name }),
      );
      setPhase({ name: 'done', videoId: videoID });
      onProcessing?.(videoID);
    } catch (error) {
      setPhase({ name: 'failed', message: controller.signal.aborted ? 'Upload cancelled.' : (error as Error).message });
    } finally {
      cancel.current = undefined;
    }
  }

  return (
    <form class="inline upload-panel" data-testid="upload-panel" onSubmit={(event) => void start(event)}>
      <label>
        File
        <input
          type="file"
          accept={acceptedFiles}
          data-testid="upload-file"
          disabled={busy}
          onChange={(event) => {
            const chosen = event.currentTarget.files?.[0];
            setFile(chosen);
            if (chosen) setName(chosen.name.replace(/\.[^.]+$/, ''));
            setPhase({ name: 'idle' });
          }}
        />
      </label>
      <label>
        or URL
        <input
          type="url"
          placeholder="https://…"
          value={sourceUrl}
          disabled={busy || !!file}
          data-testid="upload-url"
          onInput={(event) => {
            setSourceUrl(event.currentTarget.value);
            setPhase({ name: 'idle' });
          }}
        />
      </label>
      <label>
        Name
        <input value={name} disabled={busy} data-testid="upload-name" onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <label>
        Quality
        <select value={quality} disabled={busy} onChange={(event) => setQuality(event.currentTarget.value as VideoQuality)}>
          {qualities.map((q) => (
            <option key={q.value} value={q.value}>
              {q.label}
            </option>
          ))}
        </select>
      </label>
      <label class="checkbox">
        <span>
          <input type="checkbox" checked={isPublic} disabled={busy} data-testid="upload-public" onChange={(event) => setPublic(event.currentTarget.checked)} /> Public
        </span>
      </label>
      <button type="submit" class="primary" disabled={(!file && !sourceUrl.trim()) || busy} data-testid="upload-start">
        {file || !sourceUrl.trim() ? 'Upload' : 'Ingest'}
      </button>
      {phase.name === 'uploading' && (
        <>
          <progress max={1} value={phase.progress.fraction} data-testid="upload-progress" />
          <span class="muted">
            {Math.round(phase.progress.fraction * 100)}% · {megabytes(phase.progress.sentBytes)} of {megabytes(phase.progress.totalBytes)}
            {phase.progress.mode === 'multipart' ? ' · in parts' : ''}
          </span>
          <button type="button" onClick={() => cancel.current?.abort()}>
            Cancel
          </button>
        </>
      )}
      {phase.name === 'processing' && <span class="muted">{file ? 'Uploaded; starting processing…' : 'Starting the ingest…'}</span>}
      {phase.name === 'done' && (
        <span data-testid="upload-done">
          Processing started: <a href={`/dashboard/videos/${phase.videoId}`}>{phase.videoId}</a>
        </span>
      )}
      {phase.name === 'failed' && (
        <span class="error" role="alert" data-testid="upload-error">
          {phase.message}
        </span>
      )}
    </form>
  );
}
