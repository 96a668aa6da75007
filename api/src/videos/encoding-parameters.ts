// A video's encoding parameters as the API takes them: the defaults of what a request left out, and
// the checks its schema cannot express.
import {
  defaultEncodingParameters,
  encodingParameterNames,
  maxFrameRateLimit,
  type EncodingParameters,
} from '@kino/proto/contract';
import type { FieldError } from '../http/errors.ts';

/**
 * The encoding parameters of a process request (its other fields left out), each one it left out at
 * its default. The only place defaults are applied: the video row keeps the result, the orchestrator
 * plans from it and sends every value on the wire, and a node fills in nothing.
 */
export function withDefaultParameters(request: Partial<EncodingParameters>): EncodingParameters {
  const given = Object.fromEntries(
    encodingParameterNames.filter((name) => request[name] !== undefined).map((name) => [name, request[name]]),
  ) as Partial<EncodingParameters>;
  return { ...defaultEncodingParameters, ...given };
}

/** What the schema cannot say: `maxFrameRate` is -1 (auto) or 1..240, never 0 or another negative. */
export function checkEncodingParameters(parameters: EncodingParameters): FieldError[] {
  const errors: FieldError[] = [];
  const { maxFrameRate } = parameters;
  if (maxFrameRate !== -1 && (maxFrameRate < 1 || maxFrameRate > maxFrameRateLimit)) {
    errors.push({
      message: `maxFrameRate must be -1 (auto) or between 1 and ${maxFrameRateLimit}`,
      location: 'body.maxFrameRate',
      value: maxFrameRate,
    });
  }
  return errors;
}
