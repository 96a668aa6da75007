import { KinoError } from './errors.ts';
import { HttpClient, type FetchLike } from './http.ts';
import { Analytics } from './resources/analytics.ts';
import { Environments } from './resources/environments.ts';
import { LiveStreams } from './resources/live-streams.ts';
import { Nodes } from './resources/nodes.ts';
import { Playback } from './resources/playback.ts';
import { Uploads, type FileAccess } from './resources/uploads.ts';
import { Videos } from './resources/videos.ts';
import { Webhooks } from './resources/webhooks.ts';
import type { Health } from './types.ts';

export interface KinoOptions {
  /** The API root, ending in `/v1/api` (env KINO_API_URL). */
  apiUrl?: string;
  /** An API key, `svc_live_...` or `svc_test_...` (env KINO_API_KEY). Server side only. */
  apiKey?: string;
  /** Retries of a call answered 429 or 5xx, or not answered; default 2. */
  maxRetries?: number;
  /** Per attempt of an API call; for a file upload, the longest time without progress (bytes sent or the answer); default 60 s. */
  timeoutMs?: number;
  /** A wait the API asks for that is longer than this is not waited out; default 60 s. */
  maxRetryDelayMs?: number;
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: FetchLike;
  /** The control plane's operator token, for `nodes` (env KINO_OPERATOR_TOKEN); enough without an API key. */
  operatorToken?: string;
}

/** What `.kino/dev.json` holds: the dev stack's endpoints and credentials. */
export interface DevStackInfo {
  apiUrl: string;
  deliveryUrl: string;
  orgId: string;
  envId: string;
  apiKey: string;
}

/** An environment variable where the runtime has them (Node, Bun, Deno's Node compatibility); none in a browser. */
function environmentVariable(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
}

function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolveSleep, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolveSleep();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The Kino API client.
 * @example
 * import { Kino } from '@kino/sdk';
 * const kino = new Kino({ apiUrl: 'https://kino.example.com/v1/api', apiKey: process.env.KINO_API_KEY });
 * const environments = await kino.environments.list('org_123');
 * // On Node, `import { Kino } from '@kino/sdk/node'` adds file paths for uploads and `Kino.fromDevStack()`.
 */
export class Kino {
  readonly environments: Environments;
  readonly uploads: Uploads;
  readonly videos: Videos;
  readonly playback: Playback;
  readonly webhooks: Webhooks;
  readonly analytics: Analytics;
  readonly nodes: Nodes;
  readonly liveStreams: LiveStreams;
  /**
   * How file paths are opened for upload: none in the core (it runs where there is no file
   * system); the Node entry's `Kino` sets Node's.
   */
  protected static fileAccess: FileAccess | undefined = undefined;
  /** Set by `fromDevStack` (Node entry): the dev organization, environment and delivery URL. */
  readonly devStack: DevStackInfo | undefined;
  private readonly http: HttpClient;

  constructor(options: KinoOptions = {}, devStack?: DevStackInfo) {
    const apiUrl = options.apiUrl ?? environmentVariable('KINO_API_URL');
    const apiKey = options.apiKey ?? environmentVariable('KINO_API_KEY');
    if (!apiUrl) throw new KinoError('apiUrl is required (or set KINO_API_URL), e.g. http://127.0.0.1:7080/v1/api');
    const operatorToken = options.operatorToken ?? environmentVariable('KINO_OPERATOR_TOKEN');
    if (!apiKey && !operatorToken) throw new KinoError('apiKey is required (or set KINO_API_KEY)');
    this.http = new HttpClient({
      apiUrl,
      apiKey: apiKey ?? '',
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 60_000,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    });
    this.devStack = devStack;
    this.environments = new Environments(this.http);
    this.uploads = new Uploads(this.http, (this.constructor as typeof Kino).fileAccess);
    this.videos = new Videos(this.http, sleepUnlessAborted);
    this.playback = new Playback(this.http);
    this.webhooks = new Webhooks(this.http);
    this.analytics = new Analytics(this.http);
    this.nodes = new Nodes(this.http, operatorToken);
    this.liveStreams = new LiveStreams(this.http);
  }

  /**
   * The service's status: `ok`, or `degraded` with the failing check (the API answers 503 then,
   * which this returns rather than throws). Needs no key.
   * @example
   * const health = await kino.health();
   * if (health.status !== 'ok') console.warn(health.checks);
   */
  async health(options: { signal?: AbortSignal } = {}): Promise<Health> {
    const { body } = await this.http.requestWithStatus<Health>('GET', '/health', {
      ...options,
      acceptStatuses: [503],
      maxRetries: 0,
    });
    return body;
  }
}
