// Paged lists: `await` gives one page; `for await` walks every item of every page from there on,
// fetching the next page only when the current one is used up.
import type { Pagination, Video, VideoList } from './types.ts';

export class VideoPage<T extends Video = Video> implements AsyncIterable<T> {
  readonly videos: T[];
  readonly pagination: Pagination;

  private readonly fetchPage: (page: number) => Promise<VideoList<T>>;
  constructor(list: VideoList<T>, fetchPage: (page: number) => Promise<VideoList<T>>) {
    this.fetchPage = fetchPage;
    this.videos = list.videos;
    this.pagination = list.pagination;
  }

  /**
   * Whether a page follows this one.
   * @example
   * const page = await kino.videos.list(orgId, envId);
   * if (page.hasNextPage()) console.log('more than', page.videos.length);
   */
  hasNextPage(): boolean {
    return this.pagination.hasNext;
  }

  /**
   * The following page.
   * @example
   * let page = await kino.videos.list(orgId, envId, { pageSize: 50 });
   * while (page.hasNextPage()) page = await page.getNextPage();
   */
  async getNextPage(): Promise<VideoPage<T>> {
    if (!this.hasNextPage()) throw new Error('there is no next page');
    return new VideoPage(await this.fetchPage(this.pagination.page + 1), this.fetchPage);
  }

  /**
   * Every item of this page and the pages after it.
   * @example
   * const page = await kino.videos.list(orgId, envId, { pageSize: 100 });
   * for await (const video of page) console.log(video.id);
   */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* this.videos;
    if (!this.hasNextPage() || this.videos.length === 0) return;
    let page = await this.getNextPage();
    for (;;) {
      yield* page.videos;
      if (!page.hasNextPage() || page.videos.length === 0) return;
      page = await page.getNextPage();
    }
  }
}

/**
 * What `list` returns before it is awaited: a promise of the first page that can also be walked
 * item by item with `for await` directly. It is a real Promise (`instanceof Promise`, `.catch`,
 * `Promise.all`), but lazy: nothing is sent until it is awaited or iterated.
 */
export class PagePromise<T extends Video = Video> extends Promise<VideoPage<T>> implements AsyncIterable<T> {
  // Promise methods make plain promises, never another PagePromise.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  #first: Promise<VideoPage<T>> | undefined;
  readonly #startPage: number;
  readonly #fetchPage: (page: number) => Promise<VideoList<T>>;

  constructor(startPage: number, fetchPage: (page: number) => Promise<VideoList<T>>) {
    // The base promise is a placeholder: every method below goes to the lazily fetched first page.
    super((resolve) => resolve(undefined as unknown as VideoPage<T>));
    this.#startPage = startPage;
    this.#fetchPage = fetchPage;
  }

  /** Fetched on first use, so a list that is never awaited sends nothing and cannot fail unseen. */
  #firstPage(): Promise<VideoPage<T>> {
    const fetchPage = this.#fetchPage;
    this.#first ??= fetchPage(this.#startPage).then((list) => new VideoPage(list, fetchPage));
    return this.#first;
  }

  override then<R1 = VideoPage<T>, R2 = never>(
    onFulfilled?: ((page: VideoPage<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage().then(onFulfilled, onRejected);
  }

  override catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<VideoPage<T> | R> {
    return this.#firstPage().catch(onRejected);
  }

  override finally(onFinally?: (() => void) | null): Promise<VideoPage<T>> {
    return this.#firstPage().finally(onFinally);
  }

  /**
   * Every item of every page, fetching each page when the previous one is used up.
   * @example
   * for await (const video of kino.videos.list(orgId, envId, { status: 'ready' })) console.log(video.id);
   */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* await this.#firstPage();
  }
}
