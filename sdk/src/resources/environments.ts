import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type { Environment } from '../types.ts';

export class Environments {
  constructor(private readonly http: HttpClient) {}

  /**
   * The environments of an organization the key may see (an environment key sees its own).
   * @example
   * const environments = await kino.environments.list('org_123');
   * console.log(environments.map((e) => `${e.id} ${e.name}`));
   */
  list(orgId: string, options: CallOptions = {}): APIPromise<Environment[]> {
    return this.http.request<{ environments: Environment[] }>('GET', `/${encodeURIComponent(orgId)}/environments`, options).map((body) => body.environments);
  }
}
