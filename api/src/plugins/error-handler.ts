// The one place errors become responses: the spec's envelope `{title, status, detail, code, errors?}`.
// Bad input is always a 4xx with a named code, never a 500; a 5xx says nothing internal (the log
// has the error, found by the request id the detail quotes).
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  BadRequestError,
  INVALID_REQUEST,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  UriTooLongError,
  ValidationError,
} from '../http/errors.ts';
import { StorageUnavailableError } from '@kino/infra';
import { errorEnvelope } from '@kino/proto/contract';
import { DatabaseUnavailableError } from '@kino/database';
import { ErrorSchema } from '../schemas/common.ts';
import { pickValidationCode, toFieldErrors, type ValidationIssue } from '../http/validation.ts';

/** Fastify's own request errors, by code, as named conditions. */
const fastifyRequestErrors: Record<string, () => ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new BadRequestError('invalid_json', 'The request body is not valid JSON.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    new BadRequestError('invalid_json', 'The request says Content-Type application/json but its body is empty.'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new UnsupportedMediaTypeError('Send JSON request bodies (Content-Type: application/json).'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new BadRequestError('invalid_request', 'The Content-Length header does not match the body.'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new PayloadTooLargeError('The request body is larger than 1 MB.'),
  FST_ERR_CTP_INVALID_TYPE: () => new UnsupportedMediaTypeError('The Content-Type header is not a valid media type.'),
  FST_ERR_BAD_URL: () => new BadRequestError('invalid_url_encoding', 'The URL holds an invalid percent-encoding.'),
  FST_ERR_MAX_PARAM_LENGTH: () => new UriTooLongError('A path parameter is longer than this API accepts.'),
  FST_ERR_PROTO_POISONING: () =>
    new BadRequestError('invalid_json', 'The request body may not use __proto__ as a key.'),
  FST_ERR_CONSTRUCTOR_POISONING: () =>
    new BadRequestError('invalid_json', 'The request body may not use constructor.prototype as a key.'),
};

/**
 * Statuses any route may answer before its handler runs, documented on every operation: 400 (a
 * URL, header or body the route's schema refuses) and 431 (headers or URL over Node's 16 KB); on
 * methods with a body, 413 (over 1 MB) and 415 (not JSON).
 */
const frameworkStatuses = [400, 431];
const bodyStatuses = [413, 415];
const methodsWithBody = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  // A route's query met a database that is restarting or gone: nothing was changed, try again.
  if (error instanceof DatabaseUnavailableError)
    return new ServiceUnavailableError('The database is unavailable; try again shortly.');
  if (error instanceof StorageUnavailableError)
    return new ServiceUnavailableError('Storage is unavailable; try again shortly.');
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const errors = toFieldErrors(
      fastifyError.validation as unknown as ValidationIssue[],
      fastifyError.validationContext,
    );
    const code = pickValidationCode(errors, request.routeOptions.config?.validationCodes, INVALID_REQUEST);
    return new ValidationError(code, errors.map((e) => e.message).join('; '), errors);
  }
  const known = fastifyError.code ? fastifyRequestErrors[fastifyError.code] : undefined;
  if (known) return known();
  // The JSON parser's own SyntaxError (Fastify marks it 400).
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new BadRequestError('invalid_json', 'The request body is not valid JSON.');
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return new ApiError(status, status === 404 ? 'not_found' : 'invalid_request', fastifyError.message);
  }
  return new ApiError(500, 'internal_error', 'An internal error occurred.');
}

/** The envelope; a 5xx detail names the request id, which finds the log line that has the cause. */
export function errorBody(error: ApiError, requestId?: string) {
  const detail =
    error.statusCode >= 500 && requestId ? `${error.detail.replace(/\.$/, '')} (request ${requestId}).` : error.detail;
  return errorEnvelope(error.statusCode, error.code, detail, error.errors);
}

/** Answers an error in the envelope (also for errors Fastify meets before routing: `frameworkErrors`). */
export function sendError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const apiError = toApiError(error, request);
  if (apiError.statusCode >= 500) request.log.error({ err: error, code: apiError.code }, 'request failed');
  else request.log.info({ code: apiError.code, status: apiError.statusCode }, apiError.detail);
  if (apiError instanceof MethodNotAllowedError) reply.header('Allow', apiError.allow);
  // Errors met before routing skip the onRequest hooks that set it.
  reply.header('X-Request-Id', request.id);
  return reply
    .status(apiError.statusCode)
    .type('application/json; charset=utf-8')
    .send(errorBody(apiError, request.id));
}

async function errorHandlerPlugin(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    sendError(error, request, reply),
  );

  // Every operation documents the answers it may give before its handler runs.
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const statuses = [...frameworkStatuses, ...(methods.some((m) => methodsWithBody.has(m)) ? bodyStatuses : [])];
    const declared = (route.schema?.response ?? {}) as Record<string, unknown>;
    route.schema = {
      ...route.schema,
      response: { ...Object.fromEntries(statuses.map((status) => [status, ErrorSchema])), ...declared },
    };
  });

  app.setNotFoundHandler((request) => {
    const path = request.url.split('?')[0] ?? request.url;
    throw new NotFoundError('not_found', `No route ${request.method} ${path}. The API lives under /v1/api.`);
  });
}

export default fp(errorHandlerPlugin, { name: 'kino-error-handler', fastify: '5.x' });
