// The spec's playback query parameters besides `token`: `bootstrap` (boolean), `_HLS_msn`
// (integer), `_HLS_part` (integer), `_HLS_skip` (boolean). `bootstrap=true` asks for a video's
// bootstrap segments (routes/playback.ts; docs/decisions/just-in-time.md#bootstrap-segments). The
// others belong to low-latency HLS: a low-latency broadcast's media playlist answers blocking
// reloads and delta updates (routes/playback.ts, issue 56); any other playlist is complete or
// standard, so a blocking reload is answered at once and a delta update is the full playlist. All
// are validated here (a bad value is 400). Any other parameter is refused, as the API refuses an
// undeclared field: a misspelt `tokne=` answers 400 naming it (with the name it most
// likely meant), not 401 for a missing token.
import type { FieldError } from '@kino/proto/contract';
import { closestName } from '@kino/infra';

/** The interface's playback query parameters: the only ones a file, share or thumbnail path takes. */
export const playbackParamNames = ['token', 'bootstrap', '_HLS_msn', '_HLS_part', '_HLS_skip'] as const;
const known = new Set<string>(playbackParamNames);

const booleans = new Set(['true', 'false', '1', '0', 'yes', 'no']);
const integer = /^\d{1,10}$/;

/**
 * The errors of a query, by field. `routeParams`: parameters the route takes besides the playback
 * ones (a picture's `time`), known here and checked by the route.
 */
export function validatePlaybackParams(params: URLSearchParams, routeParams: readonly string[] = []): FieldError[] {
  // Most requests carry no query, or the token alone: they cost a size check, or one loop.
  if (params.size === 0) return [];
  const errors: FieldError[] = [];
  for (const [name, value] of params) {
    if (known.has(name) || routeParams.includes(name)) continue;
    const location = `query.${name}`;
    // An unknown name given twice is named once, with its first value.
    if (errors.some((error) => error.location === location)) continue;
    const meant = closestName(name, [...playbackParamNames, ...routeParams]);
    const message = `${name} is not a playback parameter${meant ? `; did you mean \`${meant}\`?` : ''}`;
    errors.push({ message, location, value });
  }
  const check = (name: string, ok: (value: string) => boolean, message: string) => {
    const value = params.get(name);
    if (value !== null && !ok(value)) errors.push({ message, location: `query.${name}`, value });
  };
  check('bootstrap', (v) => booleans.has(v.toLowerCase()), 'bootstrap must be a boolean (true or false)');
  check('_HLS_msn', (v) => integer.test(v), '_HLS_msn must be a non-negative integer');
  check('_HLS_part', (v) => integer.test(v), '_HLS_part must be a non-negative integer');
  // HLS: YES or v2; the spec calls it a boolean, so true/false are taken too.
  check(
    '_HLS_skip',
    (v) => v === 'YES' || v === 'v2' || booleans.has(v.toLowerCase()),
    '_HLS_skip must be YES, v2 or a boolean',
  );
  if (params.has('_HLS_part') && !params.has('_HLS_msn')) {
    errors.push({ message: '_HLS_part needs _HLS_msn', location: 'query._HLS_part', value: params.get('_HLS_part') });
  }
  return errors;
}
