// The promise every API call of the client returns (http.ts makes them).
/**
 * What every API call returns: a promise of the answer's data that also gives the HTTP response
 * it came in (`withResponse()`: its headers hold `X-Request-Id` and the rate limits).
 * @example
 * const { data: video, response } = await kino.videos.get(orgId, 'vid_123').withResponse();
 * console.log(response.headers.get('x-ratelimit-remaining'), response.headers.get('x-request-id'));
 */
export class APIPromise<T> implements Promise<T> {
  readonly [Symbol.toStringTag] = 'APIPromise';

  private readonly answered: Promise<{ data: T; response: Response }>;
  constructor(answered: Promise<{ data: T; response: Response }>) {
    this.answered = answered;
  }

  /**
   * The data and the response it came in (its body already read).
   * @example
   * const { data, response } = await kino.videos.update(orgId, 'vid_123', { videoName: 'Keynote' }).withResponse();
   * console.log(data.name, response.headers.get('x-request-id'));
   */
  withResponse(): Promise<{ data: T; response: Response }> {
    return this.answered;
  }

  /**
   * The same call answering a part of its data (a list call's array out of its `{items}` body).
   * @example
   * const names = await kino.environments.list(orgId).map((environments) => environments.map((e) => e.name));
   */
  map<U>(pick: (data: T) => U): APIPromise<U> {
    return new APIPromise(this.answered.then(({ data, response }) => ({ data: pick(data), response })));
  }

  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.answered.then(({ data }) => data).then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }
}
