// Every documented operation refuses a field its schema does not declare, in its JSON body and its
// query string, at every level: a misspelt option (`maxEdgeLenght`) answers 400 naming it instead of
// being dropped and leaving its default in place. Done here, once, for every route as it is
// declared, so a new route is closed without anyone remembering to: each object schema of a body or
// query string gets `additionalProperties: false`, which both the validator (http/validation.ts,
// which also words the error) and the OpenAPI document read. The dashboard's own routes and pages
// (hidden from the document) keep their schemas as written: the identity provider's callback
// carries parameters Kino does not choose.
import fp from 'fastify-plugin';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

/** The body of an operation that takes none: absent, or `{}`. The OpenAPI document leaves it out (app.ts). */
const NoBody = Type.Object({}, { additionalProperties: false, 'x-kino-no-body': true });

/** Whether a route's body schema is NoBody, i.e. the operation documents no request body. */
export function isNoBody(schema: unknown): boolean {
  return (schema as Record<string, unknown> | undefined)?.['x-kino-no-body'] === true;
}

const methodsWithBody = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The schema with every object in it closed: `additionalProperties: false` wherever an object
 * schema says nothing of extra properties (one that allows them on purpose says so and stays open).
 * Members of an `allOf` stay as they are: closing each would refuse the other members' fields.
 */
function closeObjectSchemas<T extends TSchema>(schema: T): T {
  const closed: Record<string | symbol, unknown> = { ...(schema as Record<string | symbol, unknown>) };
  if (
    schema.type === 'object' &&
    schema.properties &&
    schema.additionalProperties === undefined &&
    !schema.patternProperties
  ) {
    closed.additionalProperties = false;
  }
  if (schema.properties) {
    closed.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, TSchema>).map(([name, property]) => [
        name,
        closeObjectSchemas(property),
      ]),
    );
  }
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items))
    closed.items = closeObjectSchemas(schema.items as TSchema);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) closed[key] = (schema[key] as TSchema[]).map(closeObjectSchemas);
  }
  return closed as unknown as T;
}

async function strictRequestsPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const { body, querystring } = (route.schema ?? {}) as { body?: TSchema; querystring?: TSchema };
    route.schema = {
      ...route.schema,
      // A route without a query string declares no parameter: any one sent is unknown.
      querystring: querystring ? closeObjectSchemas(querystring) : Type.Object({}, { additionalProperties: false }),
      ...(body
        ? { body: closeObjectSchemas(body) }
        : methods.some((m) => methodsWithBody.has(m))
          ? { body: NoBody }
          : {}),
    };
  });
}

export default fp(strictRequestsPlugin, { name: 'kino-strict-requests', fastify: '5.x' });
