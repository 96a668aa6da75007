// Schema helpers shared by the routes. TypeBox schemas are plain JSON Schema: the same objects
// validate requests (validation.ts), serialize responses and feed the OpenAPI document.
import { Kind, Type, TypeRegistry, type TSchema, type TUnsafe } from '@sinclair/typebox';

// A closed set of values, written `{type, enum}` in the OpenAPI document (a union of literals would
// become an unreadable anyOf there).
TypeRegistry.Set<{ enum: unknown[] }>('KinoEnum', (schema, value) => schema.enum.includes(value));

export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, [Kind]: 'KinoEnum', type: 'string', enum: [...values] });
}

export function IntegerEnum<const T extends readonly number[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, [Kind]: 'KinoEnum', type: 'integer', enum: [...values] });
}

/** A calendar date, YYYY-MM-DD. */
export const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/** An `Idempotency-Key`: visible ASCII characters (its length is bounded apart, 1–255). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]+$';

/** Every successful response is `{ body: ... }` (spec, Conventions). */
export function Envelope<T extends TSchema>(body: T) {
  return Type.Object({ body });
}

export const FieldErrorSchema = Type.Object({
  message: Type.String(),
  location: Type.String({ description: 'body.<field>, query.<field> or params.<field>' }),
  value: Type.Unknown({ description: 'The offending value; null when missing.' }),
});

/** The spec's error envelope, plus `code` naming the condition. */
export const ErrorSchema = Type.Object(
  {
    title: Type.String({ description: 'The HTTP status text.' }),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'The named condition, e.g. invalid_page_size, video_not_found.' }),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { title: 'Error' },
);

/** The error responses every authenticated route may give, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorSchema> {
  return Object.fromEntries([401, 403, 429, ...statuses].map((status) => [status, ErrorSchema]));
}

export const OrgParams = Type.Object({ orgID: Type.String({ minLength: 1, maxLength: 64 }) });
export const EnvParams = Type.Object({
  orgID: Type.String({ minLength: 1, maxLength: 64 }),
  envID: Type.String({ minLength: 1, maxLength: 64 }),
});
