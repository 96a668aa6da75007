// A video's encoding parameters as the API takes them: the defaults of what a request left out, and
// the checks its schema cannot express.
import {
  defaultEncodingParameters,
  encodingParameterNames,
  maxFrameRateLimit,
  withWatermarkDefaults,
  type EncodingParameters,
  type WatermarkRequest,
} from '@kino/proto/contract';
import type { Environment } from '@kino/database';
import type { FieldError } from '../http/errors.ts';

/**
 * The encoding parameters of a process request (its other fields left out), each one it left out at
 * its environment's setting where it has one, else at its default. The only place defaults are applied: the video row keeps the result, the orchestrator
 * plans from it and sends every value on the wire, and a node fills in nothing.
 */
export function withDefaultParameters(
  request: Partial<Omit<EncodingParameters, 'watermark'>> & { watermark?: WatermarkRequest },
  environment?: Pick<Environment, 'hardware_encoding' | 'node_labels'> & Partial<Pick<Environment, 'watermark'>>,
): EncodingParameters {
  const given = Object.fromEntries(
    encodingParameterNames.filter((name) => request[name] !== undefined).map((name) => [name, request[name]]),
  ) as Partial<EncodingParameters>;
  const watermark = request.watermark ? withWatermarkDefaults(request.watermark) : environment?.watermark;
  return {
    ...defaultEncodingParameters,
    ...environmentDefaults(environment),
    ...given,
    // None unless asked for, by the call or the environment: no key at all, as before watermarks.
    ...(watermark ? { watermark } : {}),
  };
}

/**
 * The environment's settings that are defaults of its process calls (issue 54): `hardwareEncoding`
 * and `nodeLabels`, where it has them; what a call gives wins. (Its `watermark`, issue 57, too:
 * withDefaultParameters takes the call's whole, or else the environment's.)
 */
function environmentDefaults(
  environment: Pick<Environment, 'hardware_encoding' | 'node_labels'> | undefined,
): Partial<EncodingParameters> {
  return {
    ...(environment?.hardware_encoding ? { hardwareEncoding: environment.hardware_encoding } : {}),
    ...(environment?.node_labels?.length ? { nodeLabels: environment.node_labels } : {}),
  };
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
