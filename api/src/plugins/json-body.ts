// JSON request bodies. Many HTTP clients send `Content-Type: application/json` on every call, a
// DELETE without a body included; Fastify's parser refuses such an empty body (400). Where the
// route's body is optional (no field required: a DELETE's reason, an operation that takes none) an
// empty body is read as no body, as without the header; where fields are required it is still
// refused as invalid_json, which says more than a list of missing fields would.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
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
    void parseJson(request, body as string, done);
  });
}

export default fp(jsonBodyPlugin, { name: 'kino-json-body', fastify: '5.x' });
