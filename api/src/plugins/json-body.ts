// JSON request bodies. Many HTTP clients send `Content-Type: application/json` on every call, a
// DELETE without a body included; Fastify's parser refuses such an empty body (400). Where the
// route's body is optional (no field required: a DELETE's reason, an operation that takes none) an
// empty body is read as no body, as without the header; where fields are required it is still
// refused as invalid_json, which says more than a list of missing fields would. A body of JSON `null`
// is refused as any body of the wrong type.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { BadRequestError } from '../http/errors.ts';
import { isOptionalBody } from '../http/validation.ts';

async function jsonBodyPlugin(app: FastifyInstance): Promise<void> {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && isOptionalBody(request.routeOptions.schema?.body)) {
      done(null, undefined);
      return;
    }
    // A JSON `null` is a body of the wrong type, not one left out: the validator cannot tell the two
    // apart (Fastify hands it `null` for a request without a body), so it is refused here.
    void parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (!error && value === null)
        done(new BadRequestError('invalid_request', 'The request body must be a JSON object, not null.'));
      else done(error, value);
    });
  });
}

export default fp(jsonBodyPlugin, { name: 'kino-json-body', fastify: '5.x' });
