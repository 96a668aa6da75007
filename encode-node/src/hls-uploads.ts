// The uploads of one HLS encode, and the signal that stops it. Segments go up while ffmpeg encodes
// the next ones; what is left, then the playlists, go up at the end (a playlist in storage means its
// files are too). The encode stops when its caller cancels or an upload fails, whichever comes first.
import { join } from 'node:path';
import { contentTypeForHlsFile } from '@kino/proto/contract';
import { InvalidRequestError } from './errors.ts';
import { UploadQueue, uploadFile } from './upload.ts';

const uploadConcurrency = 4;

export class HlsUploads {
  private readonly job = new AbortController();
  private readonly queue: UploadQueue;
  private readonly uploaded = new Set<string>();
  private failure: unknown;
  // With the caller's reason: an upload it cuts off fails with that (a cancel, an abandonment).
  private readonly stop = () => this.job.abort(this.signal.reason);

  readonly outDir: string;
  private readonly outputUrls: Record<string, string>;
  private readonly signal: AbortSignal;
  /**
   * @param outDir the directory the encode writes in: a file's name relative to it is its
   *   `output_urls` key (`720p/seg-00000.m4s`)
   * @param signal the caller's: aborting it stops the encode
   */
  constructor(outDir: string, outputUrls: Record<string, string>, signal: AbortSignal) {
    this.outDir = outDir;
    this.outputUrls = outputUrls;
    this.signal = signal;
    this.queue = new UploadQueue(uploadConcurrency, (error) => this.fail(error));
    // A signal aborted already (the call was cancelled or abandoned before the encode started)
    // fires no 'abort' event: the job stops now, before ffmpeg runs or anything uploads.
    if (signal.aborted) this.stop();
    else signal.addEventListener('abort', this.stop, { once: true });
  }

  /** Aborted when the caller cancels or the encode fails: every ffmpeg and upload of the job runs on it. */
  get jobSignal(): AbortSignal {
    return this.job.signal;
  }

  /** Bytes uploaded so far. */
  get bytes(): number {
    return this.queue.bytes;
  }

  /**
   * What stopped the encode first (an upload, or a scan for finished segments, that failed), to be
   * reported rather than what its abort then caused (ffmpeg killed, the uploads in flight cut off).
   */
  get firstFailure(): unknown {
    return this.failure;
  }

  /** Stops the encode for `error`; the first one is kept. */
  fail(error: unknown): void {
    this.failure ??= error;
    this.job.abort();
  }

  /** Uploads each of `names` not uploaded yet, beside the encode; a name without a URL throws. */
  uploadNew(names: string[]): void {
    for (const name of names) {
      if (this.uploaded.has(name)) continue;
      const url = this.outputUrls[name];
      if (!url) throw missingUrl(name);
      this.uploaded.add(name);
      this.queue.add(() => uploadFile(join(this.outDir, name), url, contentTypeForHlsFile(name), this.job.signal));
    }
  }

  /**
   * Every file ffmpeg wrote must have somewhere to go: uploading part of a rendition would leave a
   * playlist pointing at nothing.
   */
  checkUrls(names: string[]): void {
    const missing = names.filter((name) => !this.outputUrls[name]);
    if (missing.length > 0) throw missingUrl(missing.slice(0, 5).join(', '));
  }

  /** Uploads `files` not uploaded yet, then `last` once they are all in storage; waits for them. */
  async uploadRest(files: string[], last: string[] = []): Promise<void> {
    const lastOnes = new Set(last);
    this.uploadNew(files.filter((name) => !lastOnes.has(name)));
    await this.queue.drain();
    this.uploadNew(last);
    await this.queue.drain();
  }

  /** Stops uploads still in flight (after a failure) and waits for them to end. */
  async close(): Promise<void> {
    this.signal.removeEventListener('abort', this.stop);
    this.job.abort();
    await this.queue.drain().catch(() => {});
  }
}

function missingUrl(name: string): InvalidRequestError {
  return new InvalidRequestError(
    `output_urls has no URL for ${name}: the encode produced more segments than URLs were given`,
  );
}
