// The one place errors become responses: the spec's envelope `{title, status, detail, code, errors?}`.
// Bad input is always a 4xx with a named code, never a 500; a 5xx says nothing internal (the log
// has the error, found by the request id the detail quotes).
import { STATUS_CODES } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, BadRequestError, INVALID_REQUEST, NotFoundError, ValidationError } from '../errors.ts';
import { pickValidationCode, toFieldErrors, type ValidationIssue } from '../validation.ts';

/** Fastify's own request errors, by code, as named conditions. */
const fastifyRequestErrors: Record<string, { status: number; code: string; detail?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json', detail: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'invalid_json',
    detail: 'The request says Content-Type application/json but its body is empty.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', detail: 'Send JSON request bodies (Content-Type: application/json).' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request', detail: 'The Content-Length header does not match the body.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', detail: 'The request body is too large.' },
};

export function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const errors = toFieldErrors(fastifyError.validation as unknown as ValidationIssue[], fastifyError.validationContext);
    const code = pickValidationCode(errors, request.routeOptions.config?.validationCodes, INVALID_REQUEST);
    return new ValidationError(code, errors.map((e) => e.message).join('; '), errors);
  }
  const known = fastifyError.code ? fastifyRequestErrors[fastifyError.code] : undefined;
  if (known) return new ApiError(known.status, known.code, known.detail ?? fastifyError.message);
  // The JSON parser's own SyntaxError (Fastify marks it 400).
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new BadRequestError('invalid_json', 'The request body is not valid JSON.');
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return new ApiError(status, status === 404 ? 'not_found' : 'invalid_request', fastifyError.message);
  }
  return new ApiError(500, 'internal_error', `An internal error occurred (request ${request.id}).`);
}

export function errorBody(error: ApiError) {
  return {
    title: STATUS_CODES[error.statusCode] ?? 'Error',
    status: error.statusCode,
    detail: error.detail,
    code: error.code,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

async function errorHandlerPlugin(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request);
    if (apiError.statusCode >= 500) request.log.error({ err: error, code: apiError.code }, 'request failed');
    else request.log.info({ code: apiError.code, status: apiError.statusCode }, apiError.detail);
    return reply.status(apiError.statusCode).type('application/json; charset=utf-8').send(errorBody(apiError));
  });

  app.setNotFoundHandler((request) => {
    const path = request.url.split('?')[0] ?? request.url;
    throw new NotFoundError('not_found', `No route ${request.method} ${path}. The API lives under /v1/api.`);
  });
}

export default fp(errorHandlerPlugin, { name: 'kino-error-handler', fastify: '5.x' });
