import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type { Environment, UpdateEnvironmentParams } from '../types.ts';

export class Environments {
  private readonly http: HttpClient;
  constructor(http: HttpClient) {
    this.http = http;
  }

  /**
   * The environments of an organization the key may see (an environment key sees its own).
   * @example
   * const environments = await kino.environments.list('org_123');
   * console.log(environments.map((e) => `${e.id} ${e.name}`));
   */
  list(orgId: string, options: CallOptions = {}): APIPromise<Environment[]> {
    return this.http
      .request<{ environments: Environment[] }>('GET', `/${encodeURIComponent(orgId)}/environments`, options)
      .map((body) => body.environments);
  }

  /**
   * Changes an environment's settings; resolves with the environment after the change. An
   * environment key may change its own environment only.
   * @example
   * // Publish only complete ladders in production; null would follow the farm's default again.
   * await kino.environments.update(orgId, envId, { justInTime: false });
   */
  update(
    orgId: string,
    envId: string,
    changes: UpdateEnvironmentParams,
    options: CallOptions = {},
  ): APIPromise<Environment> {
    return this.http.request<Environment>(
      'PATCH',
      `/${encodeURIComponent(orgId)}/environments/${encodeURIComponent(envId)}`,
      { ...options, body: changes },
    );
  }
}
